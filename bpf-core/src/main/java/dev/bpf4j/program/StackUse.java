package dev.bpf4j.program;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.Limits;

/**
 * How much of a function's frame must be zeroed at entry so that every frame reads as zero until
 * written (docs/runtime-semantics.md "Stack"). Engines may always zero the whole frame; this lets
 * the JIT zero only what the function can read.
 */
public final class StackUse {
    private StackUse() {}

    /**
     * Bytes below r10 that the function in slots {@code [startPc, endPc)} may read before writing:
     * the whole frame when r10 escapes into another register or memory (a pointer can reach any
     * byte, also from a callee or a helper), else the deepest r10-relative load or atomic, else 0.
     */
    public static int bytesToZero(Insn[] insns, int startPc, int endPc) {
        int depth = 0;
        for (int pc = startPc; pc < endPc; pc++) {
            Insn i = insns[pc];
            int cls = i.cls();
            boolean srcIsR10 = i.src() == 10;
            if ((cls == Opcodes.ALU || cls == Opcodes.ALU64) && Opcodes.source(i.opcode()) == Opcodes.X && srcIsR10) {
                return Limits.STACK_SIZE;
            }
            if (cls == Opcodes.STX && srcIsR10) return Limits.STACK_SIZE; // r10 stored to memory
            boolean readsStack = (cls == Opcodes.LDX && srcIsR10)
                    || (cls == Opcodes.STX && Opcodes.mode(i.opcode()) == Opcodes.ATOMIC && i.dst() == 10);
            if (readsStack && i.off() < 0) depth = Math.max(depth, -i.off());
            if (i.isLddw()) pc++;
        }
        return Math.min(Limits.STACK_SIZE, (depth + 7) & ~7);
    }

    /**
     * Bytes below r10 down to the deepest r10-relative access (load, store or atomic) in slots
     * {@code [startPc, endPc)}, rounded up to 8: everything below it the function never touches.
     */
    public static int deepestAccess(Insn[] insns, int startPc, int endPc) {
        int deepest = 0;
        for (int pc = startPc; pc < endPc; pc++) {
            Insn i = insns[pc];
            int cls = i.cls();
            boolean viaR10 = (cls == Opcodes.LDX && i.src() == 10) || ((cls == Opcodes.ST || cls == Opcodes.STX) && i.dst() == 10);
            if (viaR10 && i.off() < 0) deepest = Math.max(deepest, -i.off());
            if (i.isLddw()) pc++;
        }
        return Math.min(Limits.STACK_SIZE, (deepest + 7) & ~7);
    }
}
