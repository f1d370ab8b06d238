package dev.bpf4j.helpers;

import dev.bpf4j.runtime.NativeMemory;

/**
 * The Internet checksum arithmetic of Linux (include/net/checksum.h, lib/checksum.c, x86-64
 * csum_partial) on the values helpers see: a {@code __wsum} is a 32-bit ones'-complement partial sum
 * (an {@code int} here), a {@code __sum16} the 16-bit checksum as it lies in the packet, read in host
 * (little-endian) order as the kernel reads it.
 */
final class Checksums {
    private Checksums() {}

    /**
     * csum_partial: {@code seed} plus the buffer read as little-endian 16-bit words (a last odd byte
     * as the low byte), with end-around carries. Equal to x86-64's result modulo 0xffff, and zero
     * exactly when it is (a zero seed over zero bytes), which is all any caller can observe.
     */
    static int partial(long address, long length, int seed) {
        long sum = seed & 0xffffffffL;
        long i = 0;
        for (; i + 2 <= length; i += 2) sum += NativeMemory.getShort(address + i) & 0xffff;
        if (i < length) sum += NativeMemory.getByte(address + i) & 0xff;
        while ((sum >>> 32) != 0) sum = (sum & 0xffffffffL) + (sum >>> 32);
        return (int) sum;
    }

    /** csum_add: 32-bit add with the carry folded back in. */
    static int add(int csum, int addend) {
        int res = csum + addend;
        return res + (Integer.compareUnsigned(res, addend) < 0 ? 1 : 0);
    }

    /** csum_sub. */
    static int sub(int csum, int addend) { return add(csum, ~addend); }

    /** csum_from32to16: the 32-bit sum folded to 16 bits, not complemented. */
    static int from32to16(int x) {
        long v = x & 0xffffffffL;
        v = (v & 0xffff) + (v >>> 16);
        v = (v & 0xffff) + (v >>> 16);
        return (int) v;
    }

    /** csum_fold: folded and complemented, a {@code __sum16}. */
    static int fold(int csum) { return ~from32to16(csum) & 0xffff; }

    /** csum16_add of two 16-bit values. */
    private static int add16(int csum, int addend) {
        int res = (csum + addend) & 0xffff;
        return (res + (res < (addend & 0xffff) ? 1 : 0)) & 0xffff;
    }

    /** csum_replace2: the checksum at {@code sum} after a 16-bit field changed from {@code from} to {@code to}. */
    static void replace2(long sum, int from, int to) {
        int old = NativeMemory.getShort(sum) & 0xffff;
        int r = add16(add16(~old & 0xffff, ~from & 0xffff), to & 0xffff);
        NativeMemory.putShort(sum, (short) ~r);
    }

    /** csum_replace4: as {@link #replace2} for a 32-bit field. */
    static void replace4(long sum, int from, int to) {
        int old = NativeMemory.getShort(sum) & 0xffff;
        int tmp = sub(~old, from);
        NativeMemory.putShort(sum, (short) fold(add(tmp, to)));
    }

    /** csum_replace_by_diff: the checksum at {@code sum} after data whose checksum difference is {@code diff} changed. */
    static void replaceByDiff(long sum, int diff) {
        int old = NativeMemory.getShort(sum) & 0xffff;
        NativeMemory.putShort(sum, (short) fold(add(diff, ~old)));
    }
}
