package dev.bpf4j.jit.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Probes attached and detached under fire: {@value #THREADS} threads call {@code hammer(n, function)}
 * (native: the sum of function(i), i &lt; {@value #N}) in a loop and check every sum, while the caller's
 * thread attaches a probe, waits for about two loops of every thread (at most 2 ms) and detaches it,
 * {@code cycles} times. Calls made entirely between an attach and its detach are counted as surely
 * probed.
 */
final class Hammer {
    private Hammer() {}

    static final int THREADS = 4, N = 64;

    /** Every link attached, in order; all calls made, and those made entirely while attached. */
    record Result(List<ProbeLink> links, long calls, long surelyAttached) {
        long hits() { return links.stream().mapToLong(ProbeLink::hits).sum(); }
    }

    /** {@code f}: what {@code function} returns for i; every loop must return the sum of f(i). */
    static Result run(long hammer, long function, LongUnaryOperator f, int cycles, Supplier<ProbeLink> attach) throws InterruptedException {
        long expected = 0;
        for (long i = 0; i < N; i++) expected += f.applyAsLong(i);
        final long sum = expected;
        AtomicBoolean stop = new AtomicBoolean(), attached = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong sure = new AtomicLong(), total = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        boolean before = attached.get();
                        long r = TestLib.call2(hammer, N, function);
                        boolean after = attached.get();
                        if (r != sum) throw new AssertionError("hammer returned " + r + ", expected " + sum);
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
        try {
            for (int c = 0; c < cycles && failure.get() == null; c++) {
                ProbeLink link = attach.get();
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
        assertThat(failure.get()).isNull();
        assertThat(links).hasSize(cycles);
        return new Result(links, total.get(), sure.get());
    }
}
