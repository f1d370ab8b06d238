package dev.bpf4j.unwind;

/** Thread chores the sampler, the profiler and their callers share. */
public final class Threads {
    private Threads() {}

    /**
     * Waits until {@code t} has ended, even when interrupted meanwhile (a stop must not leave a
     * thread running); the interrupt is then set again for the caller. Returns whether it was.
     */
    public static boolean joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        return interrupted;
    }
}
