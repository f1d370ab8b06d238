package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Live patching under fire: 4 threads call a function in a native loop ({@code hammer(n, f)}: the
 * sum of f(i), i &lt; n) while the main thread attaches and detaches a counting program on it 1,000
 * times (100 on the simpler sites: each cycle waits for every thread of the JVM to answer a signal,
 * slow on a loaded machine). Every loop returns the right sum (no thread ever ran a half-written instruction), no hit is
 * lost (every call made entirely while attached ran the program; the program ran exactly as often as
 * the trampolines counted), and the original bytes are back at the end. Sites: the fentry nop (one
 * instruction), a single displaced instruction (mov rax, [rip + x]), several displaced instructions
 * (sub rsp, 8; mov esi, 7) and five 1-byte nops — where a thread may be between two instructions.
 */
class ProbeHammerTest {
    private static final int THREADS = 4, N = 64;

    /** 1,000 cycles on the hardest site (several displaced instructions, threads moved by signal), 100 on the others. */
    @ParameterizedTest
    @CsvSource({"O2, ae_mid, 1000", "fentry, mid, 100", "O2, ae_got, 100", "O2, ae_nops, 100", "O0, ae_mid, 100"})
    void attachDetachWhileFourThreadsCall(String where, String fn, int cycles) throws Exception {
        long function, hammer;
        LongUnaryOperator f;
        if (where.equals("fentry")) {
            function = TestLib.address(fn);
            hammer = TestLib.address("hammer");
            f = a -> 3 * a + 8;
        } else {
            AnyEntryLib lib = AnyEntryLib.valueOf(where);
            function = lib.address(fn);
            hammer = lib.address("ae_hammer");
            f = fn.equals("ae_got") ? a -> a + 5 : fn.equals("ae_nops") ? a -> a + 2 : a -> 3 * a + 8;
        }
        long expected = 0;
        for (long i = 0; i < N; i++) expected += f.applyAsLong(i);
        byte[] original = ProcessText.read(function, 16);
        long block = NativeMemory.allocate(96);
        NativeMemory.setMemory(block, 96, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        AtomicBoolean stop = new AtomicBoolean(), attached = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong sure = new AtomicLong(), total = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        final long sum = expected;
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        boolean before = attached.get();
                        long r = TestLib.call2(hammer, N, function);
                        boolean after = attached.get();
                        if (r != sum) throw new AssertionError(fn + ": hammer returned " + r + ", expected " + sum);
                        total.addAndGet(N);
                        if (before && after) sure.addAndGet(N);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "hammer-" + t);
            th.start();
            threads.add(th);
        }
        List<ProbeLink> links = new ArrayList<>();
        try (Executable x = Engines.JIT_DIRECT.load(ProbeCountTest.counter(0, block), LoadOptions.defaults())) {
            try {
                for (int c = 0; c < cycles && failure.get() == null; c++) {
                    ProbeLink link = NativeProbes.attach(function, fn, ProbeProgram.of(x, regions));
                    attached.set(true);
                    links.add(link);
                    long seen = total.get(), until = System.nanoTime() + 2_000_000;
                    while (total.get() < seen + 2L * THREADS * N && System.nanoTime() < until) Thread.onSpinWait();
                    attached.set(false);
                    link.close();
                }
            } finally {
                stop.set(true);
                for (Thread th : threads) th.join();
            }
        }
        assertThat(failure.get()).isNull();
        long hits = links.stream().mapToLong(ProbeLink::hits).sum();
        assertThat(links).hasSize(cycles);
        assertThat(NativeMemory.getLong(block)).as("program runs = hits the trampolines counted").isEqualTo(hits);
        assertThat(hits).as("every call made while attached was hit").isGreaterThanOrEqualTo(sure.get()).isLessThanOrEqualTo(total.get());
        assertThat(ProcessText.read(function, 16)).isEqualTo(original);
        System.out.printf("%s %s: %d calls, %d while surely attached, %d hits, sync=%s%n", where, fn, total.get(), sure.get(), hits, CoreSync.mode());
        NativeMemory.free(block);
    }
}
