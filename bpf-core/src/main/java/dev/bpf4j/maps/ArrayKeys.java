package dev.bpf4j.maps;

/**
 * The little-endian u32 keys of the array-like maps (ARRAY, PROG_ARRAY, ARRAY_OF_MAPS, STACK_TRACE):
 * decoding, the bounds test and the kernel's {@code array_map_get_next_key}.
 */
final class ArrayKeys {
    private ArrayKeys() {}

    static int u32(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
    }

    static int u32(byte[] key) { return u32(key, 0); }

    static byte[] le32(int v) { return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)}; }

    /** Whether {@code index}, unsigned, is below {@code maxEntries}, unsigned. */
    static boolean inRange(int index, int maxEntries) {
        return Integer.toUnsignedLong(index) < Integer.toUnsignedLong(maxEntries);
    }

    /**
     * {@code array_map_get_next_key}: no key or one out of range gives index 0, the last index
     * {@code -ENOENT}, any other the next one; written to {@code out} as a u32.
     */
    static int next(int maxEntries, byte[] key, byte[] out) {
        long max = Integer.toUnsignedLong(maxEntries);
        long i = key == null ? max : Integer.toUnsignedLong(u32(key));
        long n;
        if (i >= max) n = 0;
        else if (i == max - 1) return -Errno.ENOENT;
        else n = i + 1;
        out[0] = (byte) n; out[1] = (byte) (n >>> 8); out[2] = (byte) (n >>> 16); out[3] = (byte) (n >>> 24);
        return 0;
    }
}
