package dev.bpf4j.jit.runtime;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;

/** Calls a program's callback entry stub, {@code long entry(void *fn, void *env)}, through jffi. */
final class CallbackInvoker {
    private CallbackInvoker() {}

    private static final CallContext ENTRY = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
    private static final Invoker INVOKER = Invoker.getInstance();

    static long call(long entry, long fn, long env) { return INVOKER.invokeN2(ENTRY, entry, fn, env); }
}
