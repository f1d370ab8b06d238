package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Java helpers called by many threads at once while the collector runs: on the JIT each call enters
 * Java through JNI from generated code (docs/jit-performance.md, "Java helpers: JNI from generated
 * code"), on the interpreter directly. Every run on both engines answers the same chained value, and
 * nothing the helpers allocate or the collections they force disturbs a run.
 */
class JavaHelperThreadsTest {
    static final int MIX = 1000, THREADS = 4, RUNS = 20_000, CALLS = 8;

    /** r0 = mix(r1): allocates, and every 5,000th call per thread asks for a collection. */
    static HelperRegistry helpers() {
        ThreadLocal<int[]> calls = ThreadLocal.withInitial(() -> new int[1]);
        return HelperRegistry.builder().add(MIX, "test_mix", (call, r1, r2, r3, r4, r5) -> {
            long[] garbage = new long[64];
            for (int i = 0; i < garbage.length; i++) garbage[i] = r1 + i;
            if (++calls.get()[0] % 5_000 == 0) System.gc();
            return expectedMix(r1) + garbage[63] - (r1 + 63);
        }).build();
    }

    static long expectedMix(long x) { return x * 0x9e3779b97f4a7c15L + 7; }

    /** r1 = mix(r1) eight times over, then r0 = r1. */
    static Program chain() {
        List<Insn> p = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            p.add(new Insn(JMP | CALL, 0, CALL_HELPER, 0, MIX));
            p.add(new Insn(ALU64 | MOV | X, 1, 0, 0, 0));
        }
        p.add(new Insn(ALU64 | MOV | X, 0, 1, 0, 0));
        p.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        return new Program("mix_chain", p);
    }

    static long expected(long seed) {
        long x = seed;
        for (int i = 0; i < CALLS; i++) x = expectedMix(x);
        return x;
    }

    /** The sum of r0 over every thread's runs, each run checked against {@link #expected}. */
    static long runAll(Engine engine) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] sums = new long[THREADS];
        try (Executable e = engine.load(chain(), LoadOptions.defaults().withHelpers(helpers()))) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < RUNS; i++) {
                            long seed = (long) thread << 32 | i;
                            long r0 = e.run(RunContext.builder().arg(1, seed).build());
                            if (r0 != expected(seed)) throw new AssertionError(engine.name() + " thread " + thread + " run " + i + ": " + r0);
                            sums[thread] += r0;
                        }
                    } catch (Throwable x) {
                        failure.compareAndSet(null, x);
                    }
                }));
            }
            for (Thread th : threads) th.start();
            for (Thread th : threads) th.join();
        }
        if (failure.get() != null) throw new AssertionError(failure.get());
        long sum = 0;
        for (long s : sums) sum += s;
        return sum;
    }

    @Test
    void bothEnginesAnswerAlikeUnderThreadsAndCollections() throws Exception {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
        long interp = runAll(Engines.byName("interp")), jit = runAll(Engines.byName("jit"));
        assertThat(jit).isEqualTo(interp);
    }
}
