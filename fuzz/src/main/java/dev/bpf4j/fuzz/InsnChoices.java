package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;

import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Random single instructions of one shape each (RFC 9669 names), operands chosen by the caller.
 * Immediates favour the interesting values: 0, ±1, sign and width boundaries.
 */
final class InsnChoices {
    private InsnChoices() {}

    static final int[] ALU_OPS = {ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, NEG, MOD, XOR, MOV, ARSH};
    static final int[] COND_JMP_OPS = {JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, JLT, JLE, JSLT, JSLE};
    static final int[] SIZES = {B, H, W, DW};
    static final int[] ATOMIC_OPS = {ADD, OR, AND, XOR, ADD | FETCH, OR | FETCH, AND | FETCH, XOR | FETCH, XCHG, CMPXCHG};
    static final int[] EDGE_IMMS = {0, 1, -1, 2, 7, 31, 32, 63, 64, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
            Integer.MAX_VALUE, Integer.MIN_VALUE, 0x10000};

    static int imm(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> EDGE_IMMS[rnd.nextInt(EDGE_IMMS.length)];
            case 1 -> rnd.nextInt(17) - 8;
            default -> rnd.nextInt();
        };
    }

    static long imm64(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0xffffffffL, 0x80000000L, 1L << 32}[rnd.nextInt(7)];
            case 1 -> imm(rnd);
            default -> rnd.nextLong();
        };
    }

    static int aluClass(Random rnd) { return rnd.nextBoolean() ? ALU64 : ALU; }

    /** {@code dst op= imm}: every op incl. neg, sdiv/smod (off 1), shifts sometimes past the width. */
    static Insn aluImm(Random rnd, int dst) {
        int cls = aluClass(rnd);
        int op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
        int width = cls == ALU64 ? 64 : 32;
        int imm = imm(rnd);
        if (op == LSH || op == RSH || op == ARSH) imm = rnd.nextInt(8) == 0 ? imm : Math.floorMod(imm, width);
        if (op == NEG) imm = 0;
        int off = (op == DIV || op == MOD) && rnd.nextInt(3) == 0 ? 1 : 0;
        return new Insn(cls | op | K, dst, 0, off, imm);
    }

    /** {@code dst op= src}: every op incl. sdiv/smod and movsx 8/16/32. */
    static Insn aluReg(Random rnd, int dst, int src) {
        int cls = aluClass(rnd);
        int op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
        if (op == NEG) return new Insn(cls | NEG | K, dst, 0, 0, 0);
        int off = 0;
        if ((op == DIV || op == MOD) && rnd.nextInt(3) == 0) off = 1;
        if (op == MOV && rnd.nextInt(3) == 0) off = cls == ALU64 ? new int[] {8, 16, 32}[rnd.nextInt(3)] : new int[] {8, 16}[rnd.nextInt(2)];
        return new Insn(cls | op | X, dst, src, off, 0);
    }

    /** le/be 16/32/64 and the unconditional bswap. */
    static Insn byteSwap(Random rnd, int dst) {
        int width = new int[] {16, 32, 64}[rnd.nextInt(3)];
        return switch (rnd.nextInt(3)) {
            case 0 -> new Insn(ALU | END | TO_LE, dst, 0, 0, width);
            case 1 -> new Insn(ALU | END | TO_BE, dst, 0, 0, width);
            default -> new Insn(ALU64 | END | TO_LE, dst, 0, 0, width);
        };
    }

    /** A conditional jump on scalars with the offset filled in later. */
    static Insn condJump(Random rnd, int dst, int src, boolean reg) {
        int cls = rnd.nextBoolean() ? JMP : JMP32;
        int op = COND_JMP_OPS[rnd.nextInt(COND_JMP_OPS.length)];
        return reg ? new Insn(cls | op | X, dst, src, 0, 0) : new Insn(cls | op | K, dst, 0, 0, imm(rnd));
    }

    static Insn withOff(Insn i, int off) { return new Insn(i.opcode(), i.dst(), i.src(), off, i.imm()); }

    static Insn withImm(Insn i, int imm) { return new Insn(i.opcode(), i.dst(), i.src(), i.off(), imm); }

    static int bytes(int size) { return size == DW ? 8 : size == W ? 4 : size == H ? 2 : 1; }
}
