package dev.bpf4j.runtime;

/**
 * The hash of a hash map's key bytes (fixed and deterministic, like {@code BPF_F_ZERO_SEED}): one
 * definition that the map's Java side and a JIT's inline lookup ({@link LookupInlining.HashBuckets})
 * both compute. The key is taken as little-endian 32-bit words, then its last {@code key_size % 4}
 * bytes one by one; each word or byte {@code w} is mixed in as {@code h ^= w; h *= MIX; h ^= h >>>
 * 15}, and the end is {@code h ^= h >>> 13; h *= FINISH; h ^= h >>> 16}, all in 32 bits.
 */
public final class KeyHash {
    private KeyHash() {}

    public static final int SEED = 0x9747b28c;
    public static final int MIX = 0x5bd1e995;
    public static final int FINISH = 0xc2b2ae35;

    public static int of(byte[] key) {
        int h = SEED, i = 0;
        for (; i + 4 <= key.length; i += 4) {
            h = mix(h, (key[i] & 0xff) | (key[i + 1] & 0xff) << 8 | (key[i + 2] & 0xff) << 16 | key[i + 3] << 24);
        }
        for (; i < key.length; i++) h = mix(h, key[i] & 0xff);
        return finish(h);
    }

    /** The hash of the {@code size} bytes at native address {@code key}. */
    public static int of(long key, int size) {
        int h = SEED, i = 0;
        for (; i + 4 <= size; i += 4) h = mix(h, NativeMemory.getInt(key + i));
        for (; i < size; i++) h = mix(h, NativeMemory.getByte(key + i) & 0xff);
        return finish(h);
    }

    private static int finish(int h) {
        h ^= h >>> 13;
        h *= FINISH;
        return h ^ (h >>> 16);
    }

    private static int mix(int h, int w) {
        h ^= w;
        h *= MIX;
        return h ^ (h >>> 15);
    }
}
