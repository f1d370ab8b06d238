package dev.bpf4j.maps;

import dev.bpf4j.runtime.KeyHash;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.NativeMemory;

import java.util.function.LongUnaryOperator;

/**
 * The bucket lists of a hash map: {@code roundup_pow_of_two(max_entries)} buckets of singly linked
 * element slots, keys stored per slot. They live off-heap, laid out as {@link LookupInlining.HashBuckets}
 * describes, so that JIT code can walk them without a lock (as the kernel's lookups walk RCU lists):
 * a chain ends in its bucket's marker {@code ~b} ({@code hlist_nulls}), a link is published last
 * with a release store, and an unlinked slot keeps its next link for a reader still standing on it.
 *
 * <p>Writers: every access to a bucket (and to the slots linked into it) happens under that bucket's
 * lock word ({@link #lock(int)}, a {@link SpinWord} next to the heads), as the kernel's bucket
 * spinlocks: Java and JIT code (a program's native {@code bpf_map_update_elem}/{@code _delete_elem})
 * take the same words. Slots are the indexes of the map's preallocated value pool.
 *
 * <p>Layout from {@code base}, 32-bit words unless said: {@code buckets} heads, {@code buckets} lock
 * words, {@code maxEntries} next links, {@code maxEntries} key hashes, {@code maxEntries} linked bytes
 * (1 while the slot is in a bucket; read racily by the LRU sweep, then re-checked under the lock),
 * padded to 4, then the keys.
 */
final class HashIndex {
    private final int keySize;
    private final int buckets;
    private final int maxEntries;
    private final long base;
    private final long locks;
    private final long next;
    private final long hashes;
    private final long linked;
    private final long keys;
    private volatile boolean freed;

    HashIndex(int maxEntries, int keySize) {
        this.keySize = keySize;
        this.maxEntries = maxEntries;
        int n = Integer.highestOneBit(Math.max(1, maxEntries - 1)) << 1;
        this.buckets = maxEntries == 1 ? 1 : n;
        long locksOffset = 4L * buckets, nextOffset = locksOffset + 4L * buckets, hashesOffset = nextOffset + 4L * maxEntries;
        long linkedOffset = hashesOffset + 4L * maxEntries, keysOffset = linkedOffset + ((maxEntries + 3L) & ~3L);
        this.base = NativeMemory.allocate(keysOffset + (long) maxEntries * keySize);
        this.locks = base + locksOffset;
        this.next = base + nextOffset;
        this.hashes = base + hashesOffset;
        this.linked = base + linkedOffset;
        this.keys = base + keysOffset;
        for (int b = 0; b < buckets; b++) NativeMemory.putInt(base + 4L * b, ~b);
    }

    /** The index's layout for a JIT's inline lookup, or null where its offsets do not fit 32 bits. */
    LookupInlining.HashBuckets layout(long valuesBase, int stride, long openWord, int cpus, long currentCpu, long refBits,
                                      LongUnaryOperator javaLookup, LookupInlining.HashWrites writes) {
        long keysOffset = keys - base, end = keysOffset + (long) maxEntries * keySize;
        if (end > Integer.MAX_VALUE) return null;
        return new LookupInlining.HashBuckets(base, buckets, maxEntries, (int) (next - base), (int) (hashes - base), (int) keysOffset,
                valuesBase, stride, keySize, openWord, cpus, currentCpu, refBits, javaLookup, writes);
    }

    /** Where the bucket locks and the linked bytes are, from the index's base (for {@link LookupInlining.HashWrites}). */
    int locksOffset() { return (int) (locks - base); }

    int linkedOffset() { return (int) (linked - base); }

    int buckets() { return buckets; }

    int bucketOf(int hash) { return hash & (buckets - 1); }

    /** Takes the lock of {@code bucket} (its {@link SpinWord}); pair with {@link #unlock(int)} in a finally. */
    void lock(int bucket) { SpinWord.lock(locks + 4L * bucket, "a hash map's bucket lock"); }

    void unlock(int bucket) { SpinWord.unlock(locks + 4L * bucket); }

    static int hash(byte[] key) { return KeyHash.of(key); }

    private long headAt(int bucket) { return base + 4L * bucket; }
    private long nextAt(int s) { return next + 4L * s; }
    private long keyAt(int s) { return keys + (long) s * keySize; }

    /** The slot holding {@code key} in {@code bucket}, or -1. Caller holds the bucket's lock. */
    int find(int bucket, int hash, byte[] key) {
        for (int s = head(bucket); s >= 0; s = nextInBucket(s)) {
            if (hashOf(s) == hash && NativeMemory.equals(keyAt(s), key, keySize)) return s;
        }
        return -1;
    }

    /** {@link #findUnlocked}: the walk ran longer than the map could make it (its chain kept changing); take the lock. */
    static final int RETRY = -2;

    /**
     * The slot holding the key at native address {@code key}, -1 when absent, or {@link #RETRY}: the
     * lock-free walk a JIT's inline lookup makes ({@link LookupInlining.HashBuckets}), as the kernel's
     * lookups walk their RCU lists. A chain that ends at another bucket's marker (a slot deleted and
     * reused while the walk stood on it) is walked again from its head.
     */
    int findUnlocked(int hash, long key) {
        int b = bucketOf(hash);
        int steps = 2 * maxEntries + 8, s = NativeMemory.getIntVolatile(headAt(b));
        while (true) {
            if (s < 0) {
                if (~s == b) return -1;
                s = NativeMemory.getIntVolatile(headAt(b));
                continue;
            }
            if (--steps == 0) return RETRY;
            if (hashOf(s) == hash && NativeMemory.equals(keyAt(s), key, keySize)) return s;
            s = NativeMemory.getIntVolatile(nextAt(s));
        }
    }

    /** Stores {@code key} in free slot {@code s} and links it at the head of {@code bucket}. Caller holds the lock. */
    void link(int bucket, int hash, byte[] key, int s) {
        NativeMemory.write(keyAt(s), key, 0, keySize);
        NativeMemory.putInt(hashes + 4L * s, hash);
        NativeMemory.putInt(nextAt(s), NativeMemory.getInt(headAt(bucket)));
        NativeMemory.putIntRelease(headAt(bucket), s); // readers see the key, hash and link first
        NativeMemory.putByte(linked + s, (byte) 1);
    }

    /**
     * Unlinks {@code s} from {@code bucket}; false when it is not there. Caller holds the lock. The slot
     * keeps its next link: a reader standing on it still reaches the rest of the chain.
     */
    boolean unlink(int bucket, int s) {
        int prev = -1;
        for (int c = head(bucket); c >= 0; prev = c, c = nextInBucket(c)) {
            if (c != s) continue;
            NativeMemory.putIntRelease(prev < 0 ? headAt(bucket) : nextAt(prev), nextInBucket(c));
            NativeMemory.putByte(linked + c, (byte) 0);
            return true;
        }
        return false;
    }

    boolean isLinked(int s) { return NativeMemory.getByte(linked + s) != 0; }

    int hashOf(int s) { return NativeMemory.getInt(hashes + 4L * s); }

    /** First slot of {@code bucket} or a negative marker; next slot in the same bucket or a negative marker. Caller holds the lock. */
    int head(int bucket) { return NativeMemory.getInt(headAt(bucket)); }

    int nextInBucket(int s) { return NativeMemory.getInt(nextAt(s)); }

    void copyKey(int s, byte[] out) { NativeMemory.read(keyAt(s), out, 0, keySize); }

    /** Frees the native index; the map is closed, and nothing may use it after this. */
    void free() {
        if (freed) return;
        freed = true;
        NativeMemory.free(base);
    }
}
