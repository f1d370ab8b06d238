package dev.bpf4j.jit.compiler;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.isa.Reg;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.jit.runtime.JniUpcall;
import dev.bpf4j.jit.runtime.UpcallBlock;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The function through which JIT code calls Java helpers over JNI ({@link UpcallEmitter}), called
 * here as JIT code calls it ({@code long f(r1, r2, r3, r4, r5, env)}), with test classes in place of
 * {@code HelperBridge}: the arguments reach Java in order and the result comes back; an exception
 * that escapes the Java method is cleared (else jffi would throw it when the call returns) and the
 * answer is 0; where GetEnv refuses (as on a thread the JVM does not know) the closure runs instead.
 */
class UpcallEmitterTest {
    private static final CallContext SIX = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);

    /** Answers a value that depends on every argument and its position; sets *done as HelperBridge does. */
    public static final class Echo {
        static final long NONCE = 0x5eed_0001L;
        static final AtomicInteger CALLS = new AtomicInteger();
        static long handshake() { return NONCE; }
        static long upcall(long block) {
            CALLS.incrementAndGet();
            UpcallBlock.returned(block);
            return UpcallBlock.arg(block, 0) + 3 * UpcallBlock.arg(block, 1) + 5 * UpcallBlock.arg(block, 2)
                    + 7 * UpcallBlock.arg(block, 3) + 11 * UpcallBlock.arg(block, 4) + 13 * UpcallBlock.arg(block, 5);
        }
    }

    /** Lets an exception escape, which HelperBridge.upcall never does on purpose. */
    public static final class Throwing {
        static final long NONCE = 0x5eed_0002L;
        static long handshake() { return NONCE; }
        static long upcall(long block) {
            throw new IllegalStateException("escaped");
        }
    }

    /** The probe trampoline's shape: two arguments. */
    public static final class Pair {
        static final long NONCE = 0x5eed_0003L;
        static long handshake() { return NONCE; }
        static long upcall(long block) {
            UpcallBlock.returned(block);
            return UpcallBlock.arg(block, 0) - 2 * UpcallBlock.arg(block, 1);
        }
    }

    private static JniRoute route(Class<?> owner, long nonce) {
        JniRoute r = JniUpcall.route(owner, nonce);
        Assumptions.assumeTrue(r != null, "JNI cannot be reached from generated code here");
        return r;
    }

    private static long labs() {
        return Library.getDefault().getSymbolAddress("labs");
    }

    private static long call(JniRoute route, long closure, long... args) {
        try (ExecutableMemory code = ExecutableMemory.of(UpcallEmitter.code(route, closure, 6, -1).code())) {
            return Invoker.getInstance().invokeN6(SIX, code.address(), args[0], args[1], args[2], args[3], args[4], args[5]);
        }
    }

    @Test
    void argumentsReachJavaInOrderAndTheResultComesBack() {
        JniRoute r = route(Echo.class, Echo.NONCE);
        long[] a = {1, -2, 1L << 40, 4, 5, 0x7000_0000_0000L};
        long expected = a[0] + 3 * a[1] + 5 * a[2] + 7 * a[3] + 11 * a[4] + 13 * a[5];
        for (int i = 0; i < 1000; i++) assertThat(call(r, labs(), a)).isEqualTo(expected);
    }

    @Test
    void twoArgumentsAsAProbeTrampolinePassesThem() {
        JniRoute r = route(Pair.class, Pair.NONCE);
        try (ExecutableMemory code = ExecutableMemory.of(UpcallEmitter.code(r, labs(), 2, -1).code())) {
            // the four arguments past the two are garbage to the function: it must not pass them on
            assertThat(Invoker.getInstance().invokeN6(SIX, code.address(), 100, 7, -1, -1, -1, -1)).isEqualTo(86);
        }
        JniRoute refused = new JniRoute(r.vm(), r.getEnv(), 0x7fff_0000, r.callStatic(), r.clear(), r.owner(), r.upcall());
        try (ExecutableMemory code = ExecutableMemory.of(UpcallEmitter.code(refused, labs(), 2, -1).code())) {
            assertThat(Invoker.getInstance().invokeN6(SIX, code.address(), -100, 7, 0, 0, 0, 0)).isEqualTo(100);
        }
    }

    @Test
    void anEscapedExceptionIsClearedAndAnswersZero() {
        JniRoute r = route(Throwing.class, Throwing.NONCE);
        for (int i = 0; i < 100; i++) assertThat(call(r, labs(), 9, 9, 9, 9, 9, 9)).isZero();
        assertThat(call(route(Echo.class, Echo.NONCE), labs(), 1, 0, 0, 0, 0, 0)).as("JNI still works after").isEqualTo(1);
    }

    @Test
    void anEscapedExceptionMarksTheEnvBlocksStatus() {
        JniRoute r = route(Throwing.class, Throwing.NONCE);
        long env = NativeMemory.allocate(512); // STATUS is its first word
        try (ExecutableMemory code = ExecutableMemory.of(UpcallEmitter.code(r, labs(), 6, 5).code())) {
            NativeMemory.setMemory(env, 512, (byte) 0);
            assertThat(Invoker.getInstance().invokeN6(SIX, code.address(), 1, 2, 3, 4, 5, env)).isZero();
            assertThat(NativeMemory.getLong(env + EnvLayout.STATUS)).isEqualTo(EnvLayout.STATUS_HELPER_ERROR);
        } finally {
            NativeMemory.free(env);
        }
    }

    /**
     * The same in a JIT run: a Java helper bound to the function of the Throwing route ends the run
     * with HELPER_FAILED at the call's pc instead of going on with r0 = 0.
     */
    @Test
    void aJitRunWhoseUpcallFailsEndsWithHelperFailed() {
        JniRoute r = route(Throwing.class, Throwing.NONCE);
        int id = 77;
        Program p = new ProgramBuilder().mov64(Reg.R0, 5).call(id).exit().build("escaping");
        HelperSpec spec = HelperRegistry.builder().add(id, "test_escaping", (c, r1, r2, r3, r4, r5) -> 1).build().lookup(id).orElseThrow();
        try (ExecutableMemory code = ExecutableMemory.of(UpcallEmitter.code(r, labs(), 6, 5).code())) {
            Map<Integer, HelperBinding> bindings = Map.of(id, new HelperBinding(id, spec.name(), code.address(), true, code));
            try (JitExecutable x = new JitExecutable(p, JitCompiler.compile(p, bindings, 1), Map.of(id, spec), bindings)) {
                assertThatThrownBy(() -> x.run(RunContext.builder().build()))
                        .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                            assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED);
                            assertThat(e.pc()).isEqualTo(1);
                            assertThat(e.getMessage()).contains("test_escaping").contains("did not return");
                        });
                assertThatThrownBy(() -> x.run(RunContext.builder().build())).as("and again").isInstanceOf(BpfRuntimeException.class);
            }
        }
    }

    @Test
    void whereGetEnvRefusesTheClosureRuns() {
        JniRoute r = route(Echo.class, Echo.NONCE);
        JniRoute refused = new JniRoute(r.vm(), r.getEnv(), 0x7fff_0000, r.callStatic(), r.clear(), r.owner(), r.upcall());
        int before = Echo.CALLS.get();
        assertThat(call(refused, labs(), -5, 1, 2, 3, 4, 5)).as("labs(-5), the stand-in closure").isEqualTo(5);
        assertThat(Echo.CALLS.get()).isEqualTo(before);
    }

    @Test
    void aClassOfAnotherNonceIsRefused() {
        assertThat(JniUpcall.route(Echo.class, Echo.NONCE + 1)).isNull();
    }
}
