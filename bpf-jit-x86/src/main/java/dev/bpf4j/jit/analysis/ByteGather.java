package dev.bpf4j.jit.analysis;

import java.util.Arrays;
import java.util.BitSet;

/**
 * A register value known to be bytes loaded from one base register, shifted into byte positions
 * and or-ed together, every other bit zero: {@code (b[k] << 24) | (b[k+1] << 16) | ...} as clang
 * writes a big-endian field read byte by byte. Immutable.
 */
final class ByteGather {
    private static final int NONE = Integer.MIN_VALUE;

    /** The base register and its version (how many writes it had) when the bytes were loaded. */
    final int base, baseVersion;
    /** Per byte position of the value (0 = least significant): the offset from base, or NONE (zero). */
    private final int[] offsets;
    /** The instructions that computed this value (loads, shifts, ors, moves). */
    final BitSet instructions;
    /** The last load among them. */
    final int lastLoad;

    private ByteGather(int base, int baseVersion, int[] offsets, BitSet instructions, int lastLoad) {
        this.base = base;
        this.baseVersion = baseVersion;
        this.offsets = offsets;
        this.instructions = instructions;
        this.lastLoad = lastLoad;
    }

    /** {@code dst = *(u8 *)(base + off)} at {@code pc}. */
    static ByteGather load(int base, int baseVersion, int off, int pc) {
        int[] offsets = new int[8];
        Arrays.fill(offsets, NONE);
        offsets[0] = off;
        BitSet at = new BitSet();
        at.set(pc);
        return new ByteGather(base, baseVersion, offsets, at, pc);
    }

    /** The value shifted left by {@code bytes}, kept to {@code width} bytes; null when a byte falls off. */
    ByteGather shiftLeft(int bytes, int width, int pc) {
        if (highestByte() + bytes >= width) return null;
        int[] shifted = new int[8];
        Arrays.fill(shifted, NONE);
        System.arraycopy(offsets, 0, shifted, bytes, 8 - bytes);
        return new ByteGather(base, baseVersion, shifted, with(instructions, pc), lastLoad);
    }

    /** {@code this | other}; null unless both gather from the same base value into disjoint bytes. */
    ByteGather or(ByteGather other, int pc) {
        if (other.base != base || other.baseVersion != baseVersion) return null;
        int[] merged = offsets.clone();
        for (int p = 0; p < 8; p++) {
            if (other.offsets[p] == NONE) continue;
            if (merged[p] != NONE) return null;
            merged[p] = other.offsets[p];
        }
        BitSet at = with(instructions, pc);
        at.or(other.instructions);
        return new ByteGather(base, baseVersion, merged, at, Math.max(lastLoad, other.lastLoad));
    }

    /** The same value, also computed by {@code pc} (a register move). */
    ByteGather movedBy(int pc) {
        return new ByteGather(base, baseVersion, offsets, with(instructions, pc), lastLoad);
    }

    /** Index of the most significant byte that is not zero. */
    int highestByte() {
        for (int p = 7; p >= 0; p--) if (offsets[p] != NONE) return p;
        return -1;
    }

    /**
     * The single load of 2, 4 or 8 bytes this value equals ({@code dst} is the register it ends in),
     * or null: bytes 0..width-1 all present and adjacent in memory, in little- or big-endian order.
     */
    LoadCombining.CombinedLoad asLoad(int dst) {
        int width = highestByte() + 1;
        if (width != 2 && width != 4 && width != 8) return null;
        boolean little = true, big = true;
        for (int p = 0; p < width; p++) {
            if (offsets[p] == NONE) return null;
            little &= offsets[p] == offsets[0] + p;
            big &= offsets[p] == offsets[width - 1] + (width - 1 - p);
        }
        if (little) return new LoadCombining.CombinedLoad(dst, base, offsets[0], width, false);
        if (big) return new LoadCombining.CombinedLoad(dst, base, offsets[width - 1], width, true);
        return null;
    }

    private static BitSet with(BitSet s, int pc) {
        BitSet copy = (BitSet) s.clone();
        copy.set(pc);
        return copy;
    }
}
