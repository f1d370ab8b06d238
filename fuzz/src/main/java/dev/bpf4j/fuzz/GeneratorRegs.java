package dev.bpf4j.fuzz;

import java.util.Arrays;

/**
 * The generator's register file at one point: a {@link RegKind} per register and, for pointers, the
 * offset from the start of what they point into (own/outer frame: from that frame's r10, so negative;
 * memory block, map value, packet: from its start) and the size of that region (a frame's size, the
 * block's, the value's, the checked packet range). Where two paths meet ({@link #join}) a register
 * keeps its kind only when both agree.
 */
final class GeneratorRegs {
    final RegKind[] kind = new RegKind[11];
    final int[] off = new int[11];
    final int[] size = new int[11];

    GeneratorRegs() { Arrays.fill(kind, RegKind.NOT_INIT); }

    GeneratorRegs copy() {
        GeneratorRegs s = new GeneratorRegs();
        System.arraycopy(kind, 0, s.kind, 0, 11);
        System.arraycopy(off, 0, s.off, 0, 11);
        System.arraycopy(size, 0, s.size, 0, 11);
        return s;
    }

    void set(int r, RegKind k, int offset, int regionSize) {
        kind[r] = k;
        off[r] = offset;
        size[r] = regionSize;
    }

    void scalar(int r) { set(r, RegKind.SCALAR, 0, 0); }

    void clobber(int r) { set(r, RegKind.NOT_INIT, 0, 0); }

    boolean is(int r, RegKind k) { return kind[r] == k; }

    /** This state where a path with state {@code other} joins it. */
    void join(GeneratorRegs other) {
        for (int r = 0; r < 11; r++) {
            if (kind[r] != other.kind[r] || off[r] != other.off[r] || size[r] != other.size[r]) kind[r] = RegKind.NOT_INIT;
        }
    }

    /** Registers of kind {@code k} among {@code from..to}. */
    int[] all(RegKind k, int from, int to) {
        return java.util.stream.IntStream.rangeClosed(from, to).filter(r -> kind[r] == k).toArray();
    }
}
