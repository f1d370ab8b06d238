package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;

/**
 * Seeded random programs in the data-buffer convention (r1 = data, r2 = len), built like parsers:
 * blocks that make a pointer (constant offset, or a variable one from a masked, shifted, sometimes
 * wrapping byte), test {@code p + n} against the end (or len against a constant) with a random
 * compare, width and operand order, then load or store around the tested bytes — sometimes past
 * them, after moving the pointer, through a spilled copy, or against an end computed wrongly.
 * Some loads are fields read byte by byte ({@link ByteFieldReads}). A failed test skips the rest
 * of its block only. r0 mixes every value loaded.
 */
final class PacketProgramGenerator {
    private static final int[] OPS = {JGT, JGE, JLT, JLE, JEQ, JNE, JSGT, JSLT, JGT, JGT, JGT};
    private static final int[] SIZES = {B, B, B, H, W, DW};
    private final Random rnd;

    private final boolean ctxForm;

    PacketProgramGenerator(long seed) { this(seed, false); }

    /**
     * {@code ctxForm}: an XDP program instead (entry r1 = {@code struct xdp_md}); it loads data and
     * data_end from the ctx (rarely the wrong way round or 8 bytes wide) and makes r2 = data_end - data,
     * then continues as in the data-buffer form.
     */
    PacketProgramGenerator(long seed, boolean ctxForm) {
        this.rnd = new Random(seed);
        this.ctxForm = ctxForm;
    }

    Program generate(String name) {
        List<Insn> out = new ArrayList<>();
        if (ctxForm) {
            boolean swap = rnd.nextInt(16) == 0, wide = rnd.nextInt(16) == 0;
            out.add(ldx(W, 2, 1, swap ? 0 : 4));
            out.add(ldx(wide ? DW : W, 1, 1, swap ? 4 : 0));
            out.add(alu64r(SUB, 2, 1));
        }
        out.add(mov64(0, 0));
        out.add(mov64r(6, 1));                                 // r6 = data
        out.add(mov64r(7, 1));                                 // r7 = end (usually)
        if (rnd.nextInt(12) == 0) out.add(alu64(ADD, 7, 1 + rnd.nextInt(2)));
        if (rnd.nextInt(12) == 0) { out.add(mov64r(9, 2)); out.add(alu64(ADD, 9, 1)); out.add(alu64r(ADD, 7, 9)); }
        else out.add(alu64r(ADD, 7, 2));
        int blocks = 1 + rnd.nextInt(4);
        for (int b = 0; b < blocks; b++) block(out);
        out.add(exit());
        return new Program(name, out);
    }

    private void block(List<Insn> out) {
        if (rnd.nextInt(5) == 0) { lengthBlock(out); return; }
        // r3 = the pointer
        out.add(mov64r(3, 6));
        out.add(alu64(ADD, 3, rnd.nextInt(24)));
        if (rnd.nextBoolean()) variableOffset(out);
        int n = rnd.nextInt(24);
        out.add(mov64r(4, 3));
        out.add(alu64(ADD, 4, n));
        List<Insn> body = accesses(n);
        int op = OPS[rnd.nextInt(OPS.length)];
        boolean swap = rnd.nextInt(4) == 0, narrow = rnd.nextInt(10) == 0;
        // the jump skips the body when "p + n REL end" (or mirrored) holds
        int skip = body.size();
        if (narrow) out.add(swap ? jmp32r(op, 7, 4, skip) : jmp32r(op, 4, 7, skip));
        else out.add(swap ? jmpr(op, 7, 4, skip) : jmpr(op, 4, 7, skip));
        out.addAll(body);
    }

    /** r3 += a byte read through the data pointer (checked or proven), masked, shifted, maybe wrapping. */
    private void variableOffset(List<Insn> out) {
        List<Insn> read = new ArrayList<>();
        read.add(ldx(B, 5, 6, rnd.nextInt(4)));
        read.add(alu32(AND, 5, rnd.nextBoolean() ? 15 : 63));
        if (rnd.nextBoolean()) read.add(alu32(LSH, 5, 2));
        if (rnd.nextInt(4) == 0) read.add(alu32(SUB, 5, 1 + rnd.nextInt(20))); // may wrap to ~2^32
        boolean lower = rnd.nextBoolean();
        out.add(mov64(5, 0));
        // a length test protects the byte read (so it is often proven too) and skips the add
        out.add(jmp(JLT, 2, 4, read.size() + (lower ? 1 : 0) + 1));
        out.addAll(read);
        if (lower) out.add(jmp32(JLT, 5, 20, 1)); // a lower bound, or the add is skipped
        out.add(alu64r(ADD, 3, 5));
    }

    private List<Insn> accesses(int n) {
        List<Insn> body = new ArrayList<>();
        if (rnd.nextInt(5) == 0) body.add(alu64(ADD, 3, rnd.nextInt(5) - 2)); // moved after the test
        int base = 3;
        if (rnd.nextInt(6) == 0) {                                           // through a spilled copy
            body.add(stx(DW, 10, 3, -8));
            if (rnd.nextInt(3) == 0) body.add(st(B, 10, -8 + rnd.nextInt(8), 0));
            body.add(ldx(DW, 8, 10, -8));
            base = 8;
        }
        int count = 1 + rnd.nextInt(3);
        for (int k = 0; k < count; k++) {
            int size = SIZES[rnd.nextInt(SIZES.length)];
            int bytes = bytes(size);
            int off = rnd.nextInt(5) == 0 ? n - bytes + 1 + rnd.nextInt(3) : rnd.nextInt(Math.max(1, n - bytes + 1));
            if (rnd.nextInt(10) == 0) off = -1 - rnd.nextInt(2);
            if (rnd.nextInt(4) == 0) {
                body.add(st(size, base, off, rnd.nextInt(256)));
            } else if (rnd.nextInt(3) == 0) {                                // a field read byte by byte
                body.addAll(ByteFieldReads.read(rnd, base, Math.max(-2, off - rnd.nextInt(4))));
                body.add(alu64r(ADD, 0, 9));
                body.add(alu64(MUL, 0, 3));
            } else {
                body.add(ldx(size, 9, base, off));
                body.add(alu64r(ADD, 0, 9));
                body.add(alu64(MUL, 0, 3));
            }
        }
        return body;
    }

    /** if len REL c goto skip; accesses through data at offsets around c. */
    private void lengthBlock(List<Insn> out) {
        int c = rnd.nextInt(40);
        out.add(mov64r(3, 6));
        List<Insn> body = accesses(c);
        int op = OPS[rnd.nextInt(OPS.length)];
        // skip when len < c (the usual form) or with another compare
        int skipOp = rnd.nextInt(3) == 0 ? op : JLT;
        out.add(jmp(skipOp, 2, c, body.size()));
        out.addAll(body);
    }

    private static int bytes(int size) {
        switch (size) {
            case B: return 1;
            case H: return 2;
            case W: return 4;
            default: return 8;
        }
    }
}
