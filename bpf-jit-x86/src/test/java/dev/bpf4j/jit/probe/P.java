package dev.bpf4j.jit.probe;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;

/** Terse raw-instruction constructors for the probe tests. */
final class P {
    private P() {}

    static Insn mov64(int dst, int imm) { return new Insn(ALU64 | K | MOV, dst, 0, 0, imm); }
    static Insn and64(int dst, int imm) { return new Insn(ALU64 | K | AND, dst, 0, 0, imm); }
    static Insn mov64r(int dst, int src) { return new Insn(ALU64 | X | MOV, dst, src, 0, 0); }
    static Insn[] lddw(int dst, long imm) {
        return new Insn[]{new Insn(LDDW, dst, 0, 0, (int) imm), new Insn(0, 0, 0, 0, (int) (imm >>> 32))};
    }
    static Insn ldx(int size, int dst, int src, int off) { return new Insn(LDX | MEM | size, dst, src, off, 0); }
    static Insn stx(int size, int dst, int src, int off) { return new Insn(STX | MEM | size, dst, src, off, 0); }
    static Insn atomicAdd(int dst, int src, int off) { return new Insn(STX | ATOMIC | DW, dst, src, off, ADD); }
    static Insn call(int helper) { return new Insn(JMP | CALL, 0, 0, 0, helper); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }

    /**
     * {@code out[i++ & 1] = bpf_get_stackid(ctx, stacks, 0)}: the u64 pair at {@code out} keeps the
     * ids of the last two hits ({@code out + 8} the latest).
     */
    static Program stackIdPair(long stacks, long out) {
        return Assembler.assembleProgram("stackid", String.join("\n",
                "lddw %r2, " + stacks,
                "mov %r3, 0",
                "call 27",
                "lddw %r1, " + out,
                "ldxdw %r2, [%r1+8]",
                "stxdw [%r1+8], %r0",
                "stxdw [%r1], %r2",
                "mov %r0, 0",
                "exit"));
    }

    static Program prog(String name, Object... parts) {
        List<Insn> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof Insn) out.add((Insn) p);
            else out.addAll(Arrays.asList((Insn[]) p));
        }
        return new Program(name, out);
    }
}
