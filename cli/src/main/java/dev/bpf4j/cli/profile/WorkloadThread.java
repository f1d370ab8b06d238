package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.Threads;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.sampling.Sampler;

import java.util.concurrent.CountDownLatch;

/**
 * Runs a loaded program from Java in a loop on its own thread ("bpf4j-workload"): created first
 * and parked, so that a sampler started next finds it in its first scan, then released by
 * {@link #go} for a fixed time or a fixed number of runs; the demo also calls its native library
 * after each run.
 */
final class WorkloadThread {
    private final Thread thread;
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long runs;
    private volatile long result;
    private volatile long elapsedNanos;
    private volatile RuntimeException failure;
    private final java.util.concurrent.CompletableFuture<Integer> tid = new java.util.concurrent.CompletableFuture<>();

    /** Runs {@code exe} with r1 = {@code arg} until {@code nanos} have passed or {@code maxRuns} runs are done. */
    WorkloadThread(Executable exe, long arg, long nanos, long maxRuns) {
        this(exe, arg, nanos, maxRuns, null);
    }

    /** As above; after each run also calls {@code native} (the demo's native library), when not null. */
    WorkloadThread(Executable exe, long arg, long nanos, long maxRuns, NativeChainProbe nativeCall) {
        RunContext ctx = RunContext.builder().arg(1, arg).build();
        this.thread = new Thread(() -> {
            try {
                tid.complete(Sampler.currentTid());
                go.await();
                long start = System.nanoTime(), end = start + nanos, n = 0, acc = 0;
                while (n < maxRuns && System.nanoTime() < end) {
                    acc += exe.run(ctx);
                    if (nativeCall != null) acc += nativeCall.call();
                    n++;
                }
                elapsedNanos = System.nanoTime() - start;
                runs = n;
                result = acc;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                tid.completeExceptionally(e);   // no effect once the tid is known
                failure = e;
            }
        }, "bpf4j-workload");
        thread.setDaemon(true);
        thread.start();
    }

    Thread thread() { return thread; }

    /** The thread's kernel tid (known once it has started). */
    int tid() { return tid.join(); }

    void go() { go.countDown(); }

    /** Ends a thread that was never released (a failure before {@link #go}); no effect once it has run. */
    void cancel() {
        if (go.getCount() > 0) thread.interrupt();
    }

    /** Waits for the end; rethrows the program's failure. */
    void join() {
        Threads.joinUninterruptibly(thread);
        if (failure != null) throw failure;
    }

    long runs() { return runs; }

    long result() { return result; }

    long elapsedNanos() { return elapsedNanos; }
}
