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
 * <p>Writers: every access to a bucket (and to the slots linked into it) happens under {@link #lock(int)
 * that bucket's stripe lock}, as the kernel's bucket spinlocks. Slots are the indexes of the map's
 * preallocated value pool.
 */
final class HashIndex {
    private static final int MAX_STRIPES = 256;

    private final int keySize;
    private final int buckets;
    private final int maxEntries;
    private final long base;
    private final long next;
    private final long hashes;
    private final long keys;
    /** 1 while the slot is linked into a bucket (read racily by the LRU sweep, then re-checked under the lock). */
    private final byte[] linked;
    private final Object[] stripes;
    private volatile boolean freed;

    HashIndex(int maxEntries, int keySize) {
        this.keySize = keySize;
        this.maxEntries = maxEntries;
        int n = Integer.highestOneBit(Math.max(1, maxEntries - 1)) << 1;
        this.buckets = maxEntries == 1 ? 1 : n;
        long nextOffset = 4L * buckets, hashesOffset = nextOffset + 4L * maxEntries, keysOffset = hashesOffset + 4L * maxEntries;
        this.linked = new byte[maxEntries];
        this.stripes = new Object[Math.min(buckets, MAX_STRIPES)];
        for (int i = 0; i < stripes.length; i++) stripes[i] = new Object();
        this.base = NativeMemory.allocate(keysOffset + (long) maxEntries * keySize); // last: nothing leaks if the heap parts fail
        this.next = base + nextOffset;
        this.hashes = base + hashesOffset;
        this.keys = base + keysOffset;
        for (int b = 0; b < buckets; b++) NativeMemory.putInt(base + 4L * b, ~b);
    }

    /** The index's layout for a JIT's inline lookup, or null where its offsets do not fit 32 bits. */
    LookupInlining.HashBuckets layout(long valuesBase, int stride, long openWord, int cpus, long currentCpu, long refBits,
                                      LongUnaryOperator javaLookup) {
        long keysOffset = keys - base, end = keysOffset + (long) maxEntries * keySize;
        if (end > Integer.MAX_VALUE) return null;
        return new LookupInlining.HashBuckets(base, buckets, maxEntries, (int) (next - base), (int) (hashes - base), (int) keysOffset,
                valuesBase, stride, keySize, openWord, cpus, currentCpu, refBits, javaLookup);
    }

    int buckets() { return buckets; }

    int bucketOf(int hash) { return hash & (buckets - 1); }

    /** The monitor guarding {@code bucket}. */
    Object lock(int bucket) { return stripes[bucket & (stripes.length - 1)]; }

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
        linked[s] = 1;
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
            linked[c] = 0;
            return true;
        }
        return false;
    }

    boolean isLinked(int s) { return linked[s] != 0; }

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
