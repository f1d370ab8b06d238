package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * Approximate LRU for the LRU hash maps: a CLOCK (second-chance) sweep over the element slots instead of
 * the kernel's active/inactive lists ({@code bpf_lru_list.c}). One clock per map (the kernel's common
 * LRU list; bpf4j keeps it for {@code BPF_F_NO_COMMON_LRU} too). A program lookup sets the slot's
 * reference bit; when no slot is free, the sweep clears set bits and evicts the first element whose bit
 * was already clear, so an insert into a full map succeeds by evicting an old element. It fails with
 * {@code -ENOMEM} (as the kernel's {@code prealloc_lru_pop}) only when every slot is held by inserts in
 * progress on other threads.
 *
 * <p>The whole state is off-heap, so that JIT code sweeps the same clock the Java helper does and the two
 * interleave ({@link #address()}): a {@link SpinWord} lock at {@link #LOCK}, the hand at {@link #HAND},
 * the count of slots acquired and not yet linked or released at {@link #IN_FLIGHT} (changed with atomic
 * adds), then one reference byte per slot from {@link #REFS}.
 *
 * <p>Lock order: the clock lock, then a bucket lock, then the pool's. Callers never hold a bucket lock
 * when they call {@link #acquire()}.
 */
final class LruClock {
    static final int LOCK = 0, HAND = 4, IN_FLIGHT = 8, REFS = 16;
    private static final byte SET = 1, CLEAR = 0;

    private final HashIndex index;
    private final SlotPool pool;
    private final int slots;
    private final long base;
    private volatile boolean freed;

    LruClock(HashIndex index, SlotPool pool, int slots) {
        this.index = index;
        this.pool = pool;
        this.slots = slots;
        this.base = NativeMemory.allocate(REFS + (long) slots);
        NativeMemory.setMemory(base, REFS + (long) slots, CLEAR);
    }

    /** The clock's native block (layout above), for JIT code that evicts. */
    long address() { return base; }

    /** Marks a recent use (bpf_lru_node_set_ref). A racy write is fine: the bit is only a hint. */
    void touch(int s) { NativeMemory.putByte(base + REFS + s, SET); }

    /** The reference bytes, one per slot: a lookup sets byte {@code s} to 1 when it finds slot {@code s}. */
    long refBits() { return base + REFS; }

    /** Frees the native block; the map is closed. */
    void free() {
        if (freed) return;
        freed = true;
        NativeMemory.free(base);
    }

    int inFlight() { return NativeMemory.getIntVolatile(base + IN_FLIGHT); }

    /** A slot for a new element: a free one, or an evicted old one; -1 when none can be had. */
    int acquire() {
        int s = pool.pop();
        if (s < 0) s = evict();
        if (s >= 0) {
            NativeMemory.putByte(base + REFS + s, CLEAR);
            NativeMemory.getAndAddInt(base + IN_FLIGHT, 1);
        }
        return s;
    }

    /** Ends an acquire: {@code s >= 0} was not used and goes back to the free list; -1 means it was linked. */
    void release(int s) {
        NativeMemory.getAndAddInt(base + IN_FLIGHT, -1);
        if (s >= 0) pool.push(s);
    }

    private int evict() {
        SpinWord.lock(base + LOCK, "an LRU map's clock");
        try {
            for (int step = 0; step < 2 * slots + 1; step++) {
                int v = NativeMemory.getInt(base + HAND);
                NativeMemory.putInt(base + HAND, v + 1 == slots ? 0 : v + 1);
                if (!index.isLinked(v)) continue;
                if (NativeMemory.getByte(base + REFS + v) != CLEAR) {
                    NativeMemory.putByte(base + REFS + v, CLEAR); // second chance
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
        } finally {
            SpinWord.unlock(base + LOCK);
        }
    }
}
