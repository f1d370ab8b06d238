package dev.bpf4j.jit.runtime;

import dev.bpf4j.runtime.RunEntry;
import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Type;

/**
 * The one jffi closure through which JIT code calls Java helpers: {@code long bridge(r1, r2, r3,
 * r4, r5, id)} — BPF r1-r5 are already the first five SysV argument registers and the JIT puts the
 * helper id in r9. The closure finds the thread's current run and dispatches on the id. It never
 * lets an exception escape into native code: the run records it and the JIT code leaves through
 * its error exit when it sees the status word.
 */
@RunEntry // the engine loop / helper bridge: never a frame of a Java caller stack
public final class HelperBridge implements Closure {
    private static final HelperBridge INSTANCE = new HelperBridge();
    /** Strongly held for the life of the process: JIT code calls its address. */
    private static volatile Closure.Handle handle;

    /** Address of the bridge closure (created on first use). */
    public static long address() {
        Closure.Handle h = handle;
        if (h == null) {
            synchronized (HelperBridge.class) {
                h = handle;
                if (h == null) {
                    Type[] params = {Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64};
                    CallContext cc = CallContext.getCallContext(Type.SINT64, params, CallingConvention.DEFAULT, false);
                    h = ClosureManager.getInstance().newClosure(INSTANCE, cc);
                    h.setAutoRelease(false);
                    handle = h;
                }
            }
        }
        return h.getAddress();
    }

    private HelperBridge() {}

    @Override public void invoke(Closure.Buffer buf) {
        try {
            JitRun run = JitRun.current();
            if (run == null) { buf.setLongReturn(0); return; }
            long r = run.callHelper((int) buf.getLong(5), buf.getLong(0), buf.getLong(1), buf.getLong(2),
                    buf.getLong(3), buf.getLong(4));
            buf.setLongReturn(r);
        } catch (Throwable t) {
            // callHelper already records failures; this only guards against errors in the bridge itself.
            buf.setLongReturn(0);
        }
    }
}
