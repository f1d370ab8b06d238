package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.Threads;
import dev.bpf4j.unwind.sampling.PerfRecord;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Hands samples from the sampler's reader thread to one worker thread ("bpf4j-bpf-runner") that
 * runs the consumer on each, so the reader never waits for a program run and the rings never fill.
 * Bounded: samples beyond {@link #CAPACITY} are counted as dropped. A consumer failure stops the
 * consuming and is rethrown by {@link #finish()}.
 */
final class SampleQueue {
    static final int CAPACITY = 1024;
    private static final PerfRecord.Sample END = new PerfRecord.Sample(0, 0, 0, 0, 0, null, new byte[0], new long[0]);

    private final BlockingQueue<PerfRecord.Sample> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread worker;
    private volatile RuntimeException failure;
    private volatile long workerCpuNanos;

    SampleQueue(Consumer<PerfRecord.Sample> consumer) {
        worker = new Thread(() -> {
            while (true) {
                PerfRecord.Sample s;
                try {
                    s = queue.take();
                } catch (InterruptedException e) {
                    continue;   // only finish() ends this thread
                }
                if (s == END) {
                    workerCpuNanos = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                    return;
                }
                if (failure != null) continue;
                try {
                    consumer.accept(s);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
        }, "bpf4j-bpf-runner");
        worker.setDaemon(true);
        worker.start();
    }

    /** Samples the reader offered since its last {@link #flush()}. */
    private final java.util.List<PerfRecord.Sample> pending = new java.util.ArrayList<>();

    /** From the sampler's reader: never blocks. Queued at the next {@link #flush()} when {@code batched}. */
    void offer(PerfRecord.Sample s) {
        if (batched) pending.add(s);
        else if (!queue.offer(s)) dropped.incrementAndGet();
    }

    private boolean batched;

    /**
     * Has the reader's samples queued together at the end of each of its wake-ups, so the worker wakes
     * once per batch instead of once per sample: call {@code sampler.onBatchEnd(queue::flush)}.
     */
    SampleQueue batched() {
        batched = true;
        return this;
    }

    /** From the sampler's reader, at the end of a wake-up: queues what {@link #offer} kept. */
    void flush() {
        for (PerfRecord.Sample s : pending) if (!queue.offer(s)) dropped.incrementAndGet();
        pending.clear();
    }

    long dropped() { return dropped.get(); }

    /** CPU time (user + system) of the worker thread over its life; known after {@link #finish()}. */
    long workerCpuNanos() { return workerCpuNanos; }

    /** Waits until every queued sample is consumed; rethrows a consumer failure. */
    void finish() {
        boolean interrupted = false;
        while (worker.isAlive()) {
            try {
                queue.put(END);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        Threads.joinUninterruptibly(worker);
        if (interrupted) Thread.currentThread().interrupt();
        if (failure != null) throw failure;
    }
}
