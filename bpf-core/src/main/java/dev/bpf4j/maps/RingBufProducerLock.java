package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * The producers' lock of a {@link RingBufMap} ({@code rb->spinlock} in kernel/bpf/ringbuf.c): a u32 in the
 * ring's block, 0 free and 1 taken, so that Java producers and the JIT's native {@code bpf_ringbuf_output}
 * exclude each other on one ring. Held only for the few stores of a reservation. Java spins with
 * {@link Thread#onSpinWait}, then yields, so a holder that the OS or a safepoint stopped gets the CPU back.
 */
final class RingBufProducerLock {
    private static final int SPINS_BEFORE_YIELD = 100;
    private final long word;

    RingBufProducerLock(long word) { this.word = word; }

    void lock() {
        int spins = 0;
        while (!NativeMemory.casInt(word, 0, 1)) {
            do {
                if (++spins < SPINS_BEFORE_YIELD) Thread.onSpinWait();
                else Thread.yield();
            } while (NativeMemory.getIntVolatile(word) != 0);
        }
    }

    /** A release store: the reservation's stores are visible before the next holder's. */
    void unlock() { NativeMemory.putIntRelease(word, 0); }
}
