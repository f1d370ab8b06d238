package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;

/** Raw instruction factories for tests (the shared ProgramBuilder is written elsewhere). */
final class Asm {
    private Asm() {}

    static Insn alu64(int op, int dst, int src) { return new Insn(ALU64 | op | X, dst, src, 0, 0); }
    static Insn alu64i(int op, int dst, int imm) { return new Insn(ALU64 | op | K, dst, 0, 0, imm); }
    static Insn alu32(int op, int dst, int src) { return new Insn(ALU | op | X, dst, src, 0, 0); }
    static Insn alu32i(int op, int dst, int imm) { return new Insn(ALU | op | K, dst, 0, 0, imm); }
    static Insn mov(int dst, int imm) { return alu64i(MOV, dst, imm); }
    static Insn movr(int dst, int src) { return alu64(MOV, dst, src); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }
    static Insn ja(int off) { return new Insn(JMP | JA, 0, 0, off, 0); }
    static Insn gotol(int imm) { return new Insn(JMP32 | JA, 0, 0, 0, imm); }
    static Insn jmp(int op, int dst, int src, int off) { return new Insn(JMP | op | X, dst, src, off, 0); }
    static Insn jmpi(int op, int dst, int imm, int off) { return new Insn(JMP | op | K, dst, 0, off, imm); }
    static Insn jmp32(int op, int dst, int src, int off) { return new Insn(JMP32 | op | X, dst, src, off, 0); }
    static Insn jmp32i(int op, int dst, int imm, int off) { return new Insn(JMP32 | op | K, dst, 0, off, imm); }
    static Insn call(int helper) { return new Insn(JMP | CALL, 0, CALL_HELPER, 0, helper); }
    static Insn callLocal(int rel) { return new Insn(JMP | CALL, 0, PSEUDO_CALL, 0, rel); }
    static Insn ldx(int size, int dst, int src, int off) { return new Insn(LDX | MEM | size, dst, src, off, 0); }
    static Insn ldxsx(int size, int dst, int src, int off) { return new Insn(LDX | MEMSX | size, dst, src, off, 0); }
    static Insn stx(int size, int dst, int src, int off) { return new Insn(STX | MEM | size, dst, src, off, 0); }
    static Insn st(int size, int dst, int off, int imm) { return new Insn(ST | MEM | size, dst, 0, off, imm); }
    static Insn atomic(int size, int dst, int src, int off, int op) { return new Insn(STX | ATOMIC | size, dst, src, off, op); }

    /** The two slots of {@code lddw dst, value}. */
    static Insn[] lddw(int dst, long value) {
        return new Insn[] {new Insn(LDDW, dst, 0, 0, (int) value), new Insn(0, 0, 0, 0, (int) (value >>> 32))};
    }

    /** A program from instructions and instruction arrays (lddw). */
    static Program prog(Object... parts) {
        List<Insn> out = new ArrayList<>();
        flatten(parts, out);
        return new Program("test", out);
    }

    private static void flatten(Object[] parts, List<Insn> out) {
        for (Object p : parts) {
            if (p instanceof Insn) out.add((Insn) p);
            else flatten((Object[]) p, out);
        }
    }
}
