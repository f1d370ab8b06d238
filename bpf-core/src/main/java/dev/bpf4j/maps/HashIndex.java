package dev.bpf4j.maps;

import java.util.Arrays;

/**
 * The bucket lists of a hash map, on the Java heap: {@code roundup_pow_of_two(max_entries)} buckets of
 * singly linked element slots, keys stored per slot. Not thread-safe by itself: every access to a
 * bucket (and to the slots linked into it) happens under {@link #lock(int) that bucket's stripe lock},
 * as the kernel's bucket spinlocks. Slots are the indexes of the map's preallocated value pool.
 */
final class HashIndex {
    private static final int MAX_STRIPES = 256;

    private final int keySize;
    private final int[] heads;
    private final int[] next;
    private final int[] hashes;
    private final byte[] keys;
    /** 1 while the slot is linked into a bucket (read racily by the LRU sweep, then re-checked under the lock). */
    private final byte[] linked;
    private final Object[] stripes;

    HashIndex(int maxEntries, int keySize) {
        this.keySize = keySize;
        int buckets = Integer.highestOneBit(Math.max(1, maxEntries - 1)) << 1;
        if (maxEntries == 1) buckets = 1;
        this.heads = new int[buckets];
        Arrays.fill(heads, -1);
        this.next = new int[maxEntries];
        this.hashes = new int[maxEntries];
        this.keys = new byte[Math.multiplyExact(maxEntries, keySize)];
        this.linked = new byte[maxEntries];
        this.stripes = new Object[Math.min(buckets, MAX_STRIPES)];
        for (int i = 0; i < stripes.length; i++) stripes[i] = new Object();
    }

    int buckets() { return heads.length; }

    int bucketOf(int hash) { return hash & (heads.length - 1); }

    /** The monitor guarding {@code bucket}. */
    Object lock(int bucket) { return stripes[bucket & (stripes.length - 1)]; }

    /** A fixed, well-mixed hash of the key bytes (deterministic, like {@code BPF_F_ZERO_SEED}). */
    static int hash(byte[] key) {
        int h = 0x9747b28c;
        for (byte b : key) {
            h ^= b & 0xff;
            h *= 0x5bd1e995;
            h ^= h >>> 15;
        }
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /** The slot holding {@code key} in {@code bucket}, or -1. Caller holds the bucket's lock. */
    int find(int bucket, int hash, byte[] key) {
        for (int s = heads[bucket]; s >= 0; s = next[s]) {
            if (hashes[s] == hash && Arrays.equals(keys, s * keySize, s * keySize + keySize, key, 0, keySize)) return s;
        }
        return -1;
    }

    /** Stores {@code key} in free slot {@code s} and links it at the head of {@code bucket}. Caller holds the lock. */
    void link(int bucket, int hash, byte[] key, int s) {
        System.arraycopy(key, 0, keys, s * keySize, keySize);
        hashes[s] = hash;
        next[s] = heads[bucket];
        heads[bucket] = s;
        linked[s] = 1;
    }

    /** Unlinks {@code s} from {@code bucket}; false when it is not there. Caller holds the lock. */
    boolean unlink(int bucket, int s) {
        int prev = -1;
        for (int c = heads[bucket]; c >= 0; prev = c, c = next[c]) {
            if (c != s) continue;
            if (prev < 0) heads[bucket] = next[c]; else next[prev] = next[c];
            next[c] = -1;
            linked[c] = 0;
            return true;
        }
        return false;
    }

    boolean isLinked(int s) { return linked[s] != 0; }

    int hashOf(int s) { return hashes[s]; }

    /** First slot of {@code bucket} or -1; next slot in the same bucket or -1. Caller holds the lock. */
    int head(int bucket) { return heads[bucket]; }

    int nextInBucket(int s) { return next[s]; }

    void copyKey(int s, byte[] out) { System.arraycopy(keys, s * keySize, out, 0, keySize); }
}
