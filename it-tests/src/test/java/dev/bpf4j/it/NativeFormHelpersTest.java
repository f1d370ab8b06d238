package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The time, CPU, pid/tid and random helpers whose {@code NativeForm} the JIT calls as generated native code
 * instead of the Java body (bpf-jit-x86 {@code NativeFormEmitter}): on both engines the same clocks and CPU
 * numbers (a time between two reads of the Java body around the run, never going backwards, a CPU
 * below the possible count, the calling thread's pid and tid), u32 draws that vary within a thread and
 * between threads, and on the JIT no call of the Java body unless
 * {@code -Dbpf4j.jit.nativeHelpers=false}.
 */
class NativeFormHelpersTest {
    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    static Insn call(int id) { return new Insn(JMP | CALL, 0, CALL_HELPER, 0, id); }
    static Insn movr(int dst, int src) { return new Insn(ALU64 | MOV | X, dst, src, 0, 0); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }

    /** The standard helpers (no maps: none of these helpers uses one). */
    static final HelperRegistry STANDARD = BpfHelpers.registry(MapTable.create(List.of()));

    /** The standard helper {@code id}, its body counting its calls in {@code calls}, its native form kept. */
    static HelperRegistry counting(int id, AtomicInteger calls) {
        HelperSpec real = STANDARD.lookup(id).orElseThrow();
        Assumptions.assumeTrue(real.nativeForm() != null, real.name() + " has no native form on this machine");
        return STANDARD.toBuilder().addNative(id, real.name(), (c, r1, r2, r3, r4, r5) -> {
            calls.incrementAndGet();
            return real.body().call(c, r1, r2, r3, r4, r5);
        }, real.nativeForm()).build();
    }

    /** What the Java body answers now. */
    static long body(int id) {
        return STANDARD.lookup(id).orElseThrow().body().call(null, 0, 0, 0, 0, 0);
    }

    /** {@code insns} run 1,000 times on {@code engine}: {min r0, max r0, body calls}. */
    static long[] runs(Engine engine, int id, Insn... insns) { return summary(values(engine, id, insns)); }

    /** {min r0, max r0, body calls} of what {@link #values} answered. */
    static long[] summary(long[] values) {
        long[] r0s = Arrays.copyOf(values, 1000);
        return new long[]{Arrays.stream(r0s).min().getAsLong(), Arrays.stream(r0s).max().getAsLong(), values[1000]};
    }

    /** The r0 of 1,000 runs of {@code insns} on {@code engine}, then the Java body's call count. */
    static long[] values(Engine engine, int id, Insn... insns) {
        AtomicInteger calls = new AtomicInteger();
        long[] out = new long[1001];
        try (Executable e = engine.load(new Program("native_form", List.of(insns)), LoadOptions.defaults().withHelpers(counting(id, calls)))) {
            RunContext context = RunContext.builder().build();
            for (int i = 0; i < 1000; i++) out[i] = e.run(context);
        }
        out[1000] = calls.get();
        return out;
    }

    static List<Engine> engines() { return List.of(Engines.byName("interp"), Engines.byName("jit")); }

    @Test
    void clocksReadBetweenTwoReadsOfTheJavaBody() {
        for (int id : new int[]{HelperIds.KTIME_GET_NS, HelperIds.KTIME_GET_BOOT_NS}) {
            for (Engine engine : engines()) {
                long before = body(id);
                long[] r = runs(engine, id, call(id), exit());
                long after = body(id);
                assertThat(r[0]).as("%s helper %d", engine.name(), id).isBetween(before, after);
                assertThat(r[1]).as("%s helper %d", engine.name(), id).isBetween(r[0], after);
                assertThat(r[2]).as("%s: Java body calls", engine.name()).isEqualTo(engine.name().equals("jit") ? 0 : 1000);
            }
        }
    }

    @Test
    void clocksNeverGoBackwardsWithinARun() {
        // r6 = ktime(); r0 = ktime() - r6: at least 0 and well under a second
        Insn[] p = {call(HelperIds.KTIME_GET_NS), movr(6, 0), call(HelperIds.KTIME_GET_NS), new Insn(ALU64 | SUB | X, 0, 6, 0, 0), exit()};
        for (Engine engine : engines()) {
            long[] r = runs(engine, HelperIds.KTIME_GET_NS, p);
            assertThat(r[0]).as(engine.name()).isGreaterThanOrEqualTo(0);
            assertThat(r[1]).as(engine.name()).isLessThan(1_000_000_000L);
        }
    }

    @Test
    void theCpuIsAPossibleOne() {
        for (Engine engine : engines()) {
            long[] r = runs(engine, HelperIds.GET_SMP_PROCESSOR_ID, call(HelperIds.GET_SMP_PROCESSOR_ID), exit());
            assertThat(r[0]).as(engine.name()).isGreaterThanOrEqualTo(0);
            assertThat(r[1]).as(engine.name()).isLessThan(Cpus.possible());
            assertThat(r[2]).as("%s: Java body calls", engine.name()).isEqualTo(engine.name().equals("jit") ? 0 : 1000);
        }
    }

    @Test
    void pidAndTidAreTheCallingThreads() throws Exception {
        // each thread runs a fresh program on both engines: the first call on the JIT computes and caches, the rest read the cache
        int id = HelperIds.GET_CURRENT_PID_TGID;
        for (int t = 0; t < 3; t++) {
            long[][] seen = new long[2][];
            long[] expected = new long[1];
            Thread thread = new Thread(() -> {
                expected[0] = body(id);
                for (int i = 0; i < 2; i++) seen[i] = runs(engines().get(i), id, call(id), exit());
            });
            thread.start();
            thread.join();
            assertThat(expected[0] >>> 32).isEqualTo(ProcessHandle.current().pid());
            for (int i = 0; i < 2; i++) {
                assertThat(seen[i][0]).as(engines().get(i).name()).isEqualTo(expected[0]);
                assertThat(seen[i][1]).as(engines().get(i).name()).isEqualTo(expected[0]);
            }
            assertThat(seen[1][2]).as("jit: Java body calls").isZero();
        }
    }

    @Test
    void prandomDrawsVaryingU32s() throws Exception {
        // Bounds a uniform u32 misses with probability below 1e-25 in 1,000 draws; the exact stream is
        // checked against NativeForm.PrandomU32.mix32 in bpf-jit-x86's NativeFormsTest.
        int id = HelperIds.GET_PRANDOM_U32;
        for (Engine engine : engines()) {
            long[][] perThread = new long[2][];
            for (int t = 0; t < 2; t++) {
                int thread = t;
                Thread th = new Thread(() -> perThread[thread] = values(engine, id, call(id), exit()));
                th.start();
                th.join();
            }
            Set<Long> seen = new HashSet<>();
            for (long[] v : perThread) {
                long[] r = summary(v);
                assertThat(r[2]).as("%s: Java body calls", engine.name()).isEqualTo(engine.name().equals("jit") ? 0 : 1000);
                assertThat(r[0]).as(engine.name()).isBetween(0L, 1L << 28);
                assertThat(r[1]).as(engine.name()).isBetween((1L << 32) - (1L << 28), 0xffffffffL);
                for (int i = 0; i < 1000; i++) seen.add(v[i]);
            }
            assertThat(seen.size()).as("%s: distinct draws of two threads", engine.name()).isGreaterThan(1990);
        }
    }

    @Test
    void turnedOffTheJitCallsTheJavaBody() {
        System.setProperty("bpf4j.jit.nativeHelpers", "false");
        try {
            long[] r = runs(Engines.byName("jit"), HelperIds.KTIME_GET_NS, call(HelperIds.KTIME_GET_NS), exit());
            assertThat(r[2]).isEqualTo(1000);
        } finally {
            System.clearProperty("bpf4j.jit.nativeHelpers");
        }
    }
}
