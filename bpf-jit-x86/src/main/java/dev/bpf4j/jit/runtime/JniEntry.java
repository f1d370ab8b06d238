package dev.bpf4j.jit.runtime;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.compiler.JniEntryEmitter;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.jit.compiler.TestRunLoopEmitter;
import dev.bpf4j.runtime.RunEntry;

/**
 * Enters a program's generated code through a JNI native method of this class, bound with
 * {@code RegisterNatives} to a three-instruction trampoline ({@link JniEntryEmitter}), instead of
 * jffi's {@code invokeN2}, whose own stub (reading its call context and calling through it) costs
 * ≈1 ns a run on top of the same JVM native-method transition. Where binding fails, or with
 * {@code -Dbpf4j.jit.jniEntry=false}, {@link #BOUND} is false and runs keep jffi.
 */
@RunEntry // the native call into a run: never a frame of a Java caller stack
public final class JniEntry {
    private JniEntry() {}

    static final long NONCE = new java.util.SplittableRandom().nextLong() | 1;

    /** Answers {@link #NONCE}: JniUpcall's check that JNI found this copy of the class. */
    static long handshake() { return NONCE; }

    /** Calls the entry {@code long fn(ctx, env)} of a program; unbound (UnsatisfiedLinkError) unless {@link #BOUND}. */
    private static native long enter(long fn, long ctx, long env);

    /** Calls {@code fn(ctx, env)} {@code times} times in native code ({@link TestRunLoopEmitter}); unbound unless {@link #REPEAT_BOUND}. */
    private static native long loop(long fn, long ctx, long env, long times);

    /** The trampoline, mapped unless switched off: for the life of the class, since the JVM may call it at any time. */
    private static final ExecutableMemory TRAMPOLINE =
            Switches.on("bpf4j.jit.jniEntry") ? ExecutableMemory.of(JniEntryEmitter.code()) : null;

    private static final boolean BOUND = TRAMPOLINE != null
            && JniUpcall.registerNative(JniEntry.class, NONCE, "enter", "(JJJ)J", TRAMPOLINE.address());

    /** The test-run loop, mapped (and named in the code map) for the life of the class when the entry is bound. */
    private static final boolean REPEAT_BOUND = BOUND
            && JniUpcall.registerNative(JniEntry.class, NONCE, "loop", "(JJJJ)J",
                    GeneratedFunctions.map(TestRunLoopEmitter.code(), "bpf4j_test_run").address());

    private static final CallContext TWO_ARGS = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);

    /** Whether {@link #call} goes through the JNI binding (false: through jffi). */
    public static boolean bound() { return BOUND; }

    /**
     * Calls the native function {@code long fn(long a, long b)}: a program's entry, or (in the
     * benchmarks) gcc's build of the same algorithm, so that both pay the same call.
     */
    public static long call(long fn, long a, long b) {
        return BOUND ? enter(fn, a, b) : Invoker.getInstance().invokeN2(TWO_ARGS, fn, a, b);
    }

    /** Whether {@link #repeat} is available (else a caller repeats {@link #call}). */
    static boolean repeats() { return REPEAT_BOUND; }

    /**
     * Calls a program's entry {@code fn(ctx, env)} {@code times} (at least 1) times in native code, as
     * the kernel's test-run loop does, stopping after a run whose status word is not 0; before each
     * run the budget word gets back the value it had at the start. Returns the last run's r0.
     */
    static long repeat(long fn, long ctx, long env, int times) {
        return loop(fn, ctx, env, times);
    }
}
