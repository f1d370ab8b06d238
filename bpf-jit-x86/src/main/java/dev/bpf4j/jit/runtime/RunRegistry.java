package dev.bpf4j.jit.runtime;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Every thread's {@link ThreadRuns}, so that {@link JitExecutable#close} can read their hazard
 * slots. Held weakly: a dead thread's state (only Java heap, never native memory, is read) goes
 * with its thread-local map, and its reference is dropped at the next prune. A thread that is in a
 * run holds its state strongly through its thread-local map, so a live slot is never missed.
 */
final class RunRegistry {
    private RunRegistry() {}

    private static final List<WeakReference<ThreadRuns>> THREADS = new ArrayList<>();
    /** Prune cleared references when the list reaches this size (twice the live count after the last prune). */
    private static int pruneAt = 64;

    static synchronized void add(ThreadRuns t) {
        if (THREADS.size() >= pruneAt) {
            THREADS.removeIf(r -> r.get() == null);
            pruneAt = Math.max(64, 2 * THREADS.size());
        }
        THREADS.add(new WeakReference<>(t));
    }

    /** References held, live or cleared (bounded by about twice the live threads). */
    static synchronized int size() { return THREADS.size(); }

    private static synchronized List<ThreadRuns> snapshot() {
        List<ThreadRuns> out = new ArrayList<>(THREADS.size());
        for (WeakReference<ThreadRuns> r : THREADS) {
            ThreadRuns t = r.get();
            if (t != null) out.add(t);
        }
        return out;
    }

    /**
     * Returns once no thread runs {@code program}'s code; its {@code closed} flag is already set, so
     * no run enters it any more. First every running thread passes a barrier (or the caller fences,
     * pairing with the readers' fence), so a run that saw {@code closed} false has its slot visible
     * here; then the slots are polled, parking a little longer each time (a run may sit in a helper).
     */
    static void awaitQuiescent(JitExecutable program) {
        if (Membarrier.AVAILABLE) Membarrier.barrier();
        else java.lang.invoke.VarHandle.fullFence();
        List<ThreadRuns> threads = snapshot();
        long park = 1_000;
        for (int i = 0; i < threads.size(); ) {
            if (!threads.get(i).holds(program.id())) { i++; continue; }
            if (park < 5_000) Thread.onSpinWait();
            else LockSupport.parkNanos(park);
            park = Math.min(park * 2, 1_000_000);
        }
    }
}
