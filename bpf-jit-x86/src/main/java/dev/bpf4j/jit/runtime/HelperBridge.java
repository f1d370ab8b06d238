package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunEntry;
import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Type;

/**
 * The dispatch through which JIT code calls Java helpers, entered by the generated JNI upcall or,
 * where JNI cannot be reached, as a jffi closure: {@code long bridge(r1, r2, r3,
 * r4, r5, env)} — BPF r1-r5 are already the first five SysV argument registers, the JIT passes its
 * env block (r12) in r9 and stores the helper id in the block. The closure finds the run — the
 * thread's current one for a Java {@code run}, or through {@link DirectRuns} when native code built
 * the block (a probe trampoline) — and dispatches on the id. It never
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
        long r;
        try {
            r = dispatch(buf.getLong(5), buf.getLong(0), buf.getLong(1), buf.getLong(2), buf.getLong(3), buf.getLong(4));
        } catch (Throwable t) {
            r = 0; // callHelper already records failures; this only guards against errors in the bridge itself
        }
        buf.setLongReturn(r);
    }

    /** This copy of the class, told from a same-named class of another loader ({@link JniUpcall}). */
    static final long NONCE = new java.util.SplittableRandom().nextLong() | 1;

    /** Answers {@link #NONCE}: JniUpcall's check that JNI found this copy of the class. */
    static long handshake() { return NONCE; }

    /**
     * The bridge as generated code calls it through JNI ({@link JniUpcall}): the same dispatch, with
     * r1-r5 and env read from the upcall block, which is marked done when it returns normally, so
     * that the caller can tell an exception left pending (which it then clears) from a result.
     */
    static long upcall(long block) {
        long r;
        try {
            r = dispatch(UpcallBlock.arg(block, 5), UpcallBlock.arg(block, 0), UpcallBlock.arg(block, 1),
                    UpcallBlock.arg(block, 2), UpcallBlock.arg(block, 3), UpcallBlock.arg(block, 4));
        } catch (Throwable t) {
            r = 0;
        }
        UpcallBlock.returned(block);
        return r;
    }

    /** Runs helper {@code [env + HELPER_ID]} of the run whose env block is {@code env}. */
    private static long dispatch(long env, long r1, long r2, long r3, long r4, long r5) {
        long id = NativeMemory.getLong(env + EnvLayout.HELPER_ID); // callx stores a whole register
        long owner = NativeMemory.getLong(env + EnvLayout.OWNER);
        if (owner != 0) return DirectRuns.call(env, owner, id, r1, r2, r3, r4, r5);
        JitRun run = JitRun.current();
        return run == null ? 0 : run.callHelper(id, r1, r2, r3, r4, r5);
    }
}
