package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Random 8-byte slots, lightly biased towards valid encodings: most opcodes are drawn from the
 * instruction classes' valid operation/size/mode combinations, registers mostly within r0-r10,
 * the fields an instruction's shape does not use mostly 0, offsets mostly short (so jumps land
 * inside), half of the programs start by writing r0 and r3-r9, and most end in {@code exit}. Most
 * programs are refused by the gate; the rest exercise what a grammar would never write.
 */
public final class RawBytesGenerator implements ProgramGenerator {
    @Override public String name() { return "bytes"; }

    @Override public FuzzCase generate(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(24);
        List<Insn> out = new ArrayList<>();
        if (rnd.nextBoolean()) { // registers the main program does not start with, written first (half of the time)
            for (int r : new int[] {0, 3, 4, 5, 6, 7, 8, 9}) out.add(new Insn(ALU64 | MOV | K, r, 0, 0, InsnChoices.imm(rnd)));
        }
        for (int i = 0; i < n; i++) {
            if (rnd.nextInt(6) == 0) {
                out.add(new Insn(LDDW, rnd.nextInt(10), 0, 0, rnd.nextInt()));
                out.add(new Insn(0, 0, 0, 0, rnd.nextInt()));
            } else {
                out.add(slot(rnd, n - i));
            }
        }
        if (rnd.nextInt(8) != 0) out.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        byte[] mem = null;
        if (rnd.nextInt(4) != 0) {
            mem = new byte[1 + rnd.nextInt(32)];
            rnd.nextBytes(mem);
        }
        return new FuzzCase(name() + " seed " + seed, out, mem);
    }

    private static Insn slot(Random rnd, int left) {
        int opcode = rnd.nextInt(12) == 0 ? rnd.nextInt(256) : plausibleOpcode(rnd);
        int dst = rnd.nextInt(12) == 0 ? rnd.nextInt(16) : rnd.nextInt(11);
        int src = rnd.nextInt(12) == 0 ? rnd.nextInt(16) : rnd.nextInt(11);
        int off = switch (rnd.nextInt(4)) {
            case 0 -> rnd.nextInt(Math.max(1, left + 1));
            case 1 -> -8 * rnd.nextInt(65);
            case 2 -> rnd.nextInt(65536) - 32768;
            default -> rnd.nextInt(33) - 16;
        };
        int imm = rnd.nextInt(3) == 0 ? rnd.nextInt() : InsnChoices.imm(rnd);
        if (cls(opcode) == JMP && op(opcode) == CALL && rnd.nextBoolean()) imm = FuzzConventions.HELPERS.get(rnd.nextInt(FuzzConventions.HELPERS.size()));
        if (mode(opcode) == ATOMIC && cls(opcode) == STX) imm = InsnChoices.ATOMIC_OPS[rnd.nextInt(InsnChoices.ATOMIC_OPS.length)];
        Insn i = new Insn(opcode, dst, src, off, imm);
        return rnd.nextInt(8) == 0 ? i : tidy(i, rnd);
    }

    /** The slot with the fields its shape does not use set to 0, as the validator wants them (the light bias). */
    static Insn tidy(Insn i, Random rnd) {
        int op = op(i.opcode()), cls = cls(i.opcode());
        int dst = i.dst() > 10 ? rnd.nextInt(10) : i.dst(), src = i.src() > 10 ? rnd.nextInt(11) : i.src();
        int off = i.off(), imm = i.imm();
        switch (cls) {
            case ALU, ALU64 -> {
                if (dst == 10) dst = rnd.nextInt(10);
                boolean signedDiv = (op == DIV || op == MOD) && off == 1;
                boolean movsx = op == MOV && source(i.opcode()) == X && (off == 8 || off == 16 || off == 32);
                if (!signedDiv && !movsx) off = rnd.nextInt(6) == 0 && (op == DIV || op == MOD) ? 1 : 0;
                if (source(i.opcode()) == X && op != END) imm = 0; else if (op != END) src = 0;
                if (op == END) { src = 0; imm = new int[] {16, 32, 64}[rnd.nextInt(3)]; }
                if (op == NEG) { src = 0; imm = 0; }
            }
            case JMP, JMP32 -> {
                if (op == CALL) { dst = 0; off = 0; src = rnd.nextInt(4) == 0 ? PSEUDO_CALL : 0; }
                else if (op == EXIT) { dst = 0; src = 0; off = 0; imm = 0; }
                else if (op == JA) { dst = 0; src = 0; if (cls == JMP) imm = 0; }
                else if (source(i.opcode()) == X) imm = 0; else src = 0;
            }
            case LDX -> imm = 0;
            case ST -> { src = 0; if (dst == 10) off = -8 * (1 + rnd.nextInt(64)); }
            case STX -> { if (mode(i.opcode()) != ATOMIC) imm = 0; if (dst == 10) off = -8 * (1 + rnd.nextInt(64)); }
            default -> { }
        }
        if (cls == LDX && src == 10) off = -8 * (1 + rnd.nextInt(64));
        return new Insn(i.opcode(), dst, src, off, imm);
    }

    private static int plausibleOpcode(Random rnd) {
        return switch (rnd.nextInt(6)) {
            case 0, 1 -> (rnd.nextBoolean() ? ALU64 : ALU) | InsnChoices.ALU_OPS[rnd.nextInt(InsnChoices.ALU_OPS.length)] | (rnd.nextBoolean() ? X : K);
            case 2 -> (rnd.nextBoolean() ? JMP : JMP32) | new int[] {JA, JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, CALL, EXIT, JLT, JLE, JSLT, JSLE}[rnd.nextInt(14)]
                    | (rnd.nextBoolean() ? X : K);
            case 3 -> LDX | (rnd.nextBoolean() ? MEM : MEMSX) | InsnChoices.SIZES[rnd.nextInt(4)];
            case 4 -> (rnd.nextBoolean() ? ST : STX) | MEM | InsnChoices.SIZES[rnd.nextInt(4)];
            default -> STX | ATOMIC | (rnd.nextBoolean() ? W : DW);
        };
    }
}
