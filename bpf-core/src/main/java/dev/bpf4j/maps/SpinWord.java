package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.util.concurrent.locks.LockSupport;

/**
 * A lock that Java and JIT code both take: a 4-byte native word, 0 free and 1 held, taken with a
 * compare-and-swap (native code: {@code lock cmpxchg} or {@code xchg} of 1) and released with a
 * store of 0. The hash maps' bucket locks and free lists use it instead of Java monitors, which
 * native code cannot take.
 *
 * <p>Critical sections under such a word are short and bounded (a chain walk, a copy, a few
 * stores), make no calls and allocate nothing, so a holder keeps it for microseconds unless it is
 * descheduled (or stopped at a safepoint). Java waits by spinning, then yielding, then parking
 * for growing moments; JIT code spins a bounded number of rounds and then calls the Java helper,
 * which waits here. No holder can die inside a section without the JVM dying with it (the sections
 * throw nothing between lock and unlock), so a wait past {@link #TIMEOUT_NANOS} means a broken
 * invariant: it ends with {@code EBUSY} naming the lock, never a hang.
 */
final class SpinWord {
    private SpinWord() {}

    /** Longest wait before giving up (long: the holder may sit out a garbage collection). */
    static final long TIMEOUT_NANOS = 10_000_000_000L;

    /** Takes the word at {@code address}, or throws {@code EBUSY} naming {@code what} after {@link #TIMEOUT_NANOS}. */
    static void lock(long address, String what) {
        if (NativeMemory.casInt(address, 0, 1)) return;
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int round = 0; ; round++) {
            if (NativeMemory.getIntVolatile(address) == 0 && NativeMemory.casInt(address, 0, 1)) return;
            if (round < 200) Thread.onSpinWait();
            else if (round < 400) Thread.yield();
            else LockSupport.parkNanos(Math.min(1_000_000, 1_000L << Math.min(10, (round - 400) / 16)));
            if (round % 64 == 63 && System.nanoTime() - deadline > 0) {
                throw new BpfMapException(Errno.EBUSY, String.format("%s (lock word at 0x%x) held for more than %d s",
                        what, address, TIMEOUT_NANOS / 1_000_000_000L));
            }
        }
    }

    /** Releases the word (a release store: everything written under it is seen by the next holder). */
    static void unlock(long address) { NativeMemory.putIntVolatile(address, 0); }
}
