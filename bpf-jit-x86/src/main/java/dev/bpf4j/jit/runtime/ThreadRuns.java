package dev.bpf4j.jit.runtime;

/**
 * What one thread keeps between JIT runs: its current run (the helper bridge finds it here) and a
 * small pool of env blocks. One thread-local lookup per run serves both (each lookup costs a few
 * nanoseconds on a path whose floor is the ~12 ns jffi call).
 */
final class ThreadRuns {
    private static final ThreadLocal<ThreadRuns> STATE = ThreadLocal.withInitial(ThreadRuns::new);
    private static final int POOLED = 4;

    /** The innermost run in progress on this thread (runs nest when a helper starts another run). */
    JitRun current;
    private final EnvBlock[] pool = new EnvBlock[POOLED];
    private int pooled;

    private ThreadRuns() {}

    static ThreadRuns get() { return STATE.get(); }

    /** A block with room for {@code regions} regions; a helper that starts a nested run takes a second one. */
    EnvBlock acquire(int regions) {
        if (pooled > 0) {
            EnvBlock b = pool[--pooled];
            pool[pooled] = null;
            if (b.capacity() >= regions) return b;
            b.free();
        }
        return EnvBlock.allocate(regions);
    }

    void release(EnvBlock b) {
        if (pooled < POOLED) pool[pooled++] = b;
        else b.free();
    }
}
