package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;

/** Terse raw-instruction constructors for tests. */
final class I {
    private I() {}

    static Insn alu64(int op, int dst, int imm) { return new Insn(ALU64 | K | op, dst, 0, 0, imm); }
    static Insn alu64r(int op, int dst, int src) { return new Insn(ALU64 | X | op, dst, src, 0, 0); }
    static Insn alu32(int op, int dst, int imm) { return new Insn(ALU | K | op, dst, 0, 0, imm); }
    static Insn alu32r(int op, int dst, int src) { return new Insn(ALU | X | op, dst, src, 0, 0); }
    static Insn sdiv64r(int op, int dst, int src) { return new Insn(ALU64 | X | op, dst, src, 1, 0); }
    static Insn sdiv32r(int op, int dst, int src) { return new Insn(ALU | X | op, dst, src, 1, 0); }
    static Insn sdiv64(int op, int dst, int imm) { return new Insn(ALU64 | K | op, dst, 0, 1, imm); }
    static Insn mov64(int dst, int imm) { return alu64(MOV, dst, imm); }
    static Insn mov64r(int dst, int src) { return alu64r(MOV, dst, src); }
    static Insn movsx64(int dst, int src, int bits) { return new Insn(ALU64 | X | MOV, dst, src, bits, 0); }
    static Insn movsx32(int dst, int src, int bits) { return new Insn(ALU | X | MOV, dst, src, bits, 0); }
    static Insn[] lddw(int dst, long imm) {
        return new Insn[]{new Insn(LDDW, dst, 0, 0, (int) imm), new Insn(0, 0, 0, 0, (int) (imm >>> 32))};
    }
    static Insn ldx(int size, int dst, int src, int off) { return new Insn(LDX | MEM | size, dst, src, off, 0); }
    static Insn ldxsx(int size, int dst, int src, int off) { return new Insn(LDX | MEMSX | size, dst, src, off, 0); }
    static Insn stx(int size, int dst, int src, int off) { return new Insn(STX | MEM | size, dst, src, off, 0); }
    static Insn st(int size, int dst, int off, int imm) { return new Insn(ST | MEM | size, dst, 0, off, imm); }
    static Insn atomic(int size, int dst, int src, int off, int op) { return new Insn(STX | ATOMIC | size, dst, src, off, op); }
    static Insn jmp(int op, int dst, int imm, int off) { return new Insn(JMP | K | op, dst, 0, off, imm); }
    static Insn jmpr(int op, int dst, int src, int off) { return new Insn(JMP | X | op, dst, src, off, 0); }
    static Insn jmp32(int op, int dst, int imm, int off) { return new Insn(JMP32 | K | op, dst, 0, off, imm); }
    static Insn jmp32r(int op, int dst, int src, int off) { return new Insn(JMP32 | X | op, dst, src, off, 0); }
    static Insn ja(int off) { return new Insn(JMP | JA, 0, 0, off, 0); }
    static Insn gotol(int imm) { return new Insn(JMP32 | JA, 0, 0, 0, imm); }
    static Insn call(int helper) { return new Insn(JMP | CALL, 0, 0, 0, helper); }
    static Insn callLocal(int rel) { return new Insn(JMP | CALL, 0, Opcodes.PSEUDO_CALL, 0, rel); }
    static Insn end(int dir, int dst, int bits) { return new Insn(ALU | END | dir, dst, 0, 0, bits); }
    static Insn bswap(int dst, int bits) { return new Insn(ALU64 | END, dst, 0, 0, bits); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }

    /** A program from slots and slot arrays (lddw). */
    static Program prog(String name, Object... parts) {
        List<Insn> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof Insn) out.add((Insn) p);
            else out.addAll(Arrays.asList((Insn[]) p));
        }
        return new Program(name, out);
    }
}
