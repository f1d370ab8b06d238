package dev.bpf4j.analysis;

/**
 * Hash codes of {@link AbstractState}s. Bounds like {@code k * 0xffffffff} all give
 * {@code Long.hashCode == -1} (the halves cancel), and a loop that grows such a bound then fills
 * one hash bucket with thousands of states, each compared with every new one. A polynomial over
 * the full 64 bits keeps any one value's change visible, and the final mix spreads it over the
 * 32 bits a hash table uses.
 */
final class StateHash {
    private StateHash() {}

    private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

    static long add(long acc, long v) { return acc * MULTIPLIER + v; }

    /** Adds one register's or slot's value: its bounds, kind and packet id. */
    static long addValue(long acc, long lo, long hi, byte kind, int id) {
        return add(add(add(acc, lo), hi), ((long) kind << 32) | (id & 0xffffffffL));
    }

    /** MurmurHash3's 64-bit finaliser, folded to 32 bits. */
    static int finish(long acc) {
        acc ^= acc >>> 33;
        acc *= 0xff51afd7ed558ccdL;
        acc ^= acc >>> 33;
        acc *= 0xc4ceb9fe1a85ec53L;
        acc ^= acc >>> 33;
        return (int) (acc ^ (acc >>> 32));
    }
}
