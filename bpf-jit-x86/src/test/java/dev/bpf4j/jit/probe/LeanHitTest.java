package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * What a hit no longer pays: a locked add for its count ({@link PerCpuHits}) and the env words its
 * program's code never reads ({@link ProbeEnvWords}). Each is checked against the full form, which
 * the switches {@code bpf4j.probe.perCpuHits} and {@code bpf4j.probe.trimEnv} bring back.
 */
class LeanHitTest {
    private static final int WORDS = EnvLayout.sizeFor(2) / 8;

    private static Program empty() { return prog("empty", mov64(0, 0), exit()); }

    /** Stack only: r10-relative accesses the compiler emits without a check. */
    private static Program stackOnly() {
        return prog("stack_only", mov64(2, 7), stx(DW, 10, 2, -8), ldx(DW, 0, 10, -8), exit());
    }

    /** Reads the first argument from pt_regs and stores it into the region at {@code out}: checked accesses. */
    private static Program ctxToRegion(long out) {
        return prog("ctx_to_region", lddw(3, out), ldx(DW, 2, 1, PtRegsLayout.DI), stx(DW, 3, 2, 0), mov64(0, 0), exit());
    }

    private static BitSet stored(Program p) {
        LoadOptions options = LoadOptions.defaults().withHelpers(HelperRegistry.builder().add(1000, "test_nop", (call, r1, r2, r3, r4, r5) -> 0).build());
        try (Executable x = Engines.JIT_DIRECT.load(p, options)) {
            JitExecutable j = (JitExecutable) x;
            return ProbeEnvWords.stored(j.program(), j.compiled().proofs(), WORDS);
        }
    }

    @Test
    void programsWithoutCallsOrCheckedAccessesStoreOnlyTheRunStateAndArguments() {
        BitSet s = stored(empty());
        assertThat(s.cardinality()).isEqualTo(12);
        assertThat(s.get(EnvLayout.STATUS / 8)).isTrue();
        assertThat(s.get(EnvLayout.BUDGET / 8)).isTrue();
        assertThat(s.get(EnvLayout.ARGS / 8 + 1)).isTrue();
        assertThat(s.get(EnvLayout.REGIONS / 8)).isFalse();
        assertThat(s.get(EnvLayout.OWNER / 8)).isFalse();
        assertThat(stored(stackOnly())).isEqualTo(s);
    }

    @Test
    void checkedAccessesKeepTheRegionWordsAndCallsKeepEveryWord() {
        long out = NativeMemory.allocate(8);
        try {
            BitSet s = stored(ctxToRegion(out));
            assertThat(s.get(EnvLayout.REGIONS / 8)).isTrue();
            assertThat(s.get(EnvLayout.FAST_R_START / 8)).isTrue();
            assertThat(s.get(EnvLayout.SCRATCH_LIVE / 8)).isTrue();
            assertThat(s.get(EnvLayout.OWNER / 8)).isFalse();
            assertThat(stored(prog("nop_helper", call(1000), mov64(0, 0), exit())).cardinality()).isEqualTo(WORDS);
        } finally {
            NativeMemory.free(out);
        }
        System.setProperty("bpf4j.probe.trimEnv", "false");
        try {
            assertThat(stored(empty()).cardinality()).isEqualTo(WORDS);
        } finally {
            System.clearProperty("bpf4j.probe.trimEnv");
        }
    }

    /**
     * The same probes with the lean hit and with the full one (every env word, locked count), and on
     * the interpreter: every call returns the same, every hit is counted, the region gets the same value.
     */
    @Test
    void leanAndFullHitsRunAlike() {
        long leaf = TestLib.address("leaf");
        long out = NativeMemory.allocate(8);
        List<MemoryRegion> regions = List.of(new MemoryRegion("out", out, 8, true));
        try {
            for (Supplier<Program> p : List.<Supplier<Program>>of(LeanHitTest::empty, LeanHitTest::stackOnly, () -> ctxToRegion(out))) {
                List<List<Long>> seen = new ArrayList<>();
                for (Map<String, String> mode : List.of(Map.<String, String>of(), Map.of("bpf4j.probe.trimEnv", "false", "bpf4j.probe.perCpuHits", "false"))) {
                    for (Engines engine : List.of(Engines.JIT_DIRECT, Engines.INTERP)) {
                        NativeMemory.putLong(out, -1);
                        mode.forEach(System::setProperty);
                        try (Executable x = engine.load(p.get(), LoadOptions.defaults());
                             ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, regions))) {
                            mode.keySet().forEach(System::clearProperty);
                            long r = 0;
                            for (long i = 0; i < 1000; i++) r += TestLib.call2(leaf, i, 5);
                            seen.add(List.of(r, link.hits(), link.errors(), NativeMemory.getLong(out)));
                        } finally {
                            mode.keySet().forEach(System::clearProperty);
                        }
                    }
                }
                assertThat(seen).as(p.get().name()).allSatisfy(s -> assertThat(s).isEqualTo(seen.get(0)));
                assertThat(seen.get(0).subList(0, 3)).containsExactly(1000L * 999 / 2 * 3 + 5000, 1000L, 0L);
            }
        } finally {
            NativeMemory.free(out);
        }
    }

    /**
     * Four threads on two CPUs for at least 1.5 s, until the kernel has aborted some counts (preempted
     * inside the sequence; a wrong descriptor or signature would kill the process there): every hit
     * is still counted once, and none fell back to the shared word.
     */
    @Test
    void everyHitOfFourThreadsIsCountedOnceThroughRestarts() throws Exception {
        assumeThat(PerCpuHits.available()).as("glibc registers no rseq area here: hits take the locked add").isTrue();
        long hammer = TestLib.address("hammer"), mid = TestLib.address("mid");
        try (Executable x = Engines.JIT_DIRECT.load(empty(), LoadOptions.defaults());
             ProbeLink link = NativeProbes.attach(mid, "mid", ProbeProgram.of(x, List.of()))) {
            AtomicLong calls = new AtomicLong();
            long start = System.nanoTime();
            BooleanSupplier done = () -> System.nanoTime() - start > 1_500_000_000L
                    && (link.stats().get(ProbeStats.RESTARTS) > 0 || System.nanoTime() - start > 20_000_000_000L);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    while (!done.getAsBoolean()) {
                        for (int i = 0; i < 100; i++) TestLib.call2(hammer, Hammer.N, mid);
                        calls.addAndGet(100L * Hammer.N);
                    }
                });
                th.start();
                threads.add(th);
            }
            for (Thread th : threads) th.join();
            assertThat(link.stats().get(ProbeStats.RESTARTS)).as("counts the kernel restarted").isPositive();
            assertThat(link.hits()).isEqualTo(calls.get());
            assertThat(link.stats().get(ProbeStats.HITS)).as("the shared word: no thread fell back").isZero();
        }
    }
}
