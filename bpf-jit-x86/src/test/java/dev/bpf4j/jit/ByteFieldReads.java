package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;

/**
 * Random multi-byte field reads written byte by byte, as clang writes big-endian header fields:
 * each byte loaded, shifted into place and or-ed into r9, in a random order, one or two bytes at
 * a time, in 64- or 32-bit operations, big- or little-endian. A third of them carry something
 * that must stop the JIT from merging them into one load (LoadCombining): a partial value read
 * elsewhere (in the same block or the next), a store to a byte already read, a gap between the
 * bytes, the base moved in between.
 * Uses r4, r5 and r9; the caller adds r9 into its result.
 */
final class ByteFieldReads {
    private ByteFieldReads() {}

    private static final int[] WIDTHS = {2, 2, 4, 4, 8};

    static List<Insn> read(Random rnd, int base, int off) {
        int width = WIDTHS[rnd.nextInt(WIDTHS.length)];
        boolean bigEndian = rnd.nextInt(4) != 0, narrow = width <= 4 && rnd.nextBoolean();
        int spoil = rnd.nextInt(12); // 0 used elsewhere, 1 store, 2 gap, 3 base moved; else clean
        List<Integer> order = new ArrayList<>();
        for (int b = 0; b < width; b++) order.add(b);
        Collections.shuffle(order, rnd);
        List<Insn> out = new ArrayList<>();
        for (int k = 0; k < width; ) {
            int n = k > 0 && k + 1 < width && rnd.nextBoolean() ? 2 : 1;
            for (int j = 0; j < n; j++) {
                int b = order.get(k + j), at = off + b + (spoil == 2 && b == width - 1 ? 1 : 0);
                out.add(ldx(B, k == 0 ? 9 : 4 + j, base, at));
            }
            for (int j = 0; j < n; j++) {
                int b = order.get(k + j), reg = k == 0 ? 9 : 4 + j;
                int pos = bigEndian ? width - 1 - b : b;
                if (pos > 0) out.add(narrow ? alu32(LSH, reg, 8 * pos) : alu64(LSH, reg, 8 * pos));
                if (k > 0) out.add(narrow ? alu32r(OR, 9, reg) : alu64r(OR, 9, reg));
            }
            if (k == 0 && spoil == 1) out.add(st(B, base, off + order.get(0), 0x5a));
            if (k == 0 && spoil == 3) out.add(alu64(ADD, base, 1));
            k += n;
        }
        if (spoil == 0) {                           // a byte's partial value read again, maybe in the next block
            if (rnd.nextBoolean()) out.add(ja(0));
            out.add(alu64r(ADD, 0, 4));
        }
        if (spoil == 3) out.add(alu64(ADD, base, -1));
        if (rnd.nextInt(4) == 0) {                  // the field ends in a move
            out.add(mov64r(5, 9));
            out.add(mov64r(9, 5));
        }
        return out;
    }
}
