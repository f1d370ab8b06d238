package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * Approximate LRU for the LRU hash maps: a CLOCK (second-chance) sweep over the element slots instead of
 * the kernel's active/inactive lists ({@code bpf_lru_list.c}). A program lookup sets the slot's
 * reference bit; when no slot is free, the sweep clears set bits and evicts the first element whose bit
 * was already clear, so an insert into a full map succeeds by evicting an old element. It fails with
 * {@code -ENOMEM} (as the kernel's {@code prealloc_lru_pop}) only when every slot is held by inserts in
 * progress on other threads.
 *
 * <p>Lock order: the clock lock, then a bucket lock, then the pool's. Callers never hold a bucket lock
 * when they call {@link #acquire()}.
 */
final class LruClock {
    private static final byte SET = 1, CLEAR = 0;

    private final HashIndex index;
    private final SlotPool pool;
    private final int slots;
    /** One reference byte per slot, off-heap so that a JIT's inline lookup can set it ({@link #refBits()}). */
    private final long ref;
    private final Object clock = new Object();
    private int hand;
    /** Slots taken by {@link #acquire()} and not yet linked or released. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();

    LruClock(HashIndex index, SlotPool pool, int slots) {
        this.index = index;
        this.pool = pool;
        this.slots = slots;
        this.ref = NativeMemory.allocate(slots);
    }

    /** Marks a recent use (bpf_lru_node_set_ref). A racy write is fine: the bit is only a hint. */
    void touch(int s) { NativeMemory.putByte(ref + s, SET); }

    /** The reference bytes, one per slot: a lookup sets byte {@code s} to 1 when it finds slot {@code s}. */
    long refBits() { return ref; }

    /** Frees the reference bytes; the map is closed. */
    void free() { NativeMemory.free(ref); }

    int inFlight() { return inFlight.get(); }

    /** A slot for a new element: a free one, or an evicted old one; -1 when none can be had. */
    int acquire() {
        int s = pool.pop();
        if (s < 0) s = evict();
        if (s >= 0) {
            NativeMemory.putByte(ref + s, CLEAR);
            inFlight.incrementAndGet();
        }
        return s;
    }

    /** Ends an acquire: {@code s >= 0} was not used and goes back to the free list; -1 means it was linked. */
    void release(int s) {
        inFlight.decrementAndGet();
        if (s >= 0) pool.push(s);
    }

    private int evict() {
        synchronized (clock) {
            for (int step = 0; step < 2 * slots + 1; step++) {
                int v = hand;
                hand = hand + 1 == slots ? 0 : hand + 1;
                if (!index.isLinked(v)) continue;
                if (NativeMemory.getByte(ref + v) != CLEAR) {
                    NativeMemory.putByte(ref + v, CLEAR); // second chance
                    continue;
                }
                int b = index.bucketOf(index.hashOf(v));
                index.lock(b);
                try {
                    // Re-check under the bucket lock: v may have been deleted or moved meanwhile.
                    if (index.isLinked(v) && index.bucketOf(index.hashOf(v)) == b && index.unlink(b, v)) return v;
                } finally {
                    index.unlock(b);
                }
            }
            return pool.pop(); // a concurrent delete may have freed one
        }
    }
}
