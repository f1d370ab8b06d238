package dev.bpf4j.engine;

import dev.bpf4j.program.CallSiteConstants;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.Limits;

import java.util.function.IntPredicate;

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
    public static int bytesToZero(Insn[] insns, int startPc, int endPc) { return bytesToZero(insns, startPc, endPc, id -> false); }

    /**
     * As above, except that r10 does not escape when it only becomes a helper's argument:
     * {@code rX = r10; rX += K ...; call helper} in one basic block, rX one of r1-r5 and used by
     * nothing else, and {@code forwardHelper} true for the helper's id (it reads and writes through
     * a pointer argument only at and above it, and runs no program code; see
     * {@link dev.bpf4j.runtime.HelperSpec#forwardArguments}). Such a helper can read no deeper than
     * {@code -K}: how clang passes a map key or value on the stack.
     */
    public static int bytesToZero(Insn[] insns, int startPc, int endPc, IntPredicate forwardHelper) {
        int depth = 0;
        boolean[] entered = null;
        for (int pc = startPc; pc < endPc; pc++) {
            Insn i = insns[pc];
            int cls = i.cls();
            boolean srcIsR10 = i.src() == 10;
            if ((cls == Opcodes.ALU || cls == Opcodes.ALU64) && Opcodes.source(i.opcode()) == Opcodes.X && srcIsR10) {
                if (entered == null) entered = jumpTargets(insns, startPc, endPc);
                int reach = i.opcode() == (Opcodes.ALU64 | Opcodes.MOV | Opcodes.X) && i.off() == 0
                        ? helperArgumentReach(insns, pc, endPc, forwardHelper, entered) : -1;
                if (reach < 0) return Limits.STACK_SIZE;
                depth = Math.max(depth, reach);
                continue;
            }
            if (cls == Opcodes.STX && srcIsR10) return Limits.STACK_SIZE; // r10 stored to memory
            boolean readsStack = (cls == Opcodes.LDX && srcIsR10)
                    || (cls == Opcodes.STX && Opcodes.mode(i.opcode()) == Opcodes.ATOMIC && i.dst() == 10);
            if (readsStack && i.off() < 0) depth = Math.max(depth, -i.off());
            if (i.isLddw()) pc++;
        }
        return Math.min(Limits.STACK_SIZE, (depth + 7) & ~7);
    }

    /** Slots longer than this between {@code rX = r10} and the call are not followed. */
    static final int MAX_ARGUMENT_SETUP = 32;

    /**
     * For {@code rX = r10} at {@code movPc}: how far below r10 a helper can reach through rX, when
     * rX is only stepped by constants and then passed to a forward helper in the same basic block
     * (no slot in between is a jump target); -1 when rX is used in any other way.
     */
    private static int helperArgumentReach(Insn[] insns, int movPc, int endPc, IntPredicate forwardHelper, boolean[] entered) {
        int x = insns[movPc].dst();
        if (x < 1 || x > 5) return -1; // only an argument register dies at the call
        long k = 0;
        for (int q = movPc + 1; q < endPc && q <= movPc + MAX_ARGUMENT_SETUP; q++) {
            if (entered[q]) return -1;
            Insn i = insns[q];
            int cls = i.cls();
            if (cls == Opcodes.JMP || cls == Opcodes.JMP32) {
                boolean helper = CallSiteConstants.isHelperCall(i); // not callx: which helper it calls is known at run time only
                return helper && forwardHelper.test(i.imm()) ? (int) Math.min(Limits.STACK_SIZE, Math.max(0, -k)) : -1;
            }
            if (i.opcode() == (Opcodes.ALU64 | Opcodes.ADD | Opcodes.K) && i.dst() == x) {
                k += i.imm();
                continue;
            }
            if (cls == Opcodes.LD && !i.isLddw()) return -1; // legacy packet loads may leave the function
            if (i.dst() == x || ((cls != Opcodes.ALU && cls != Opcodes.ALU64 || Opcodes.source(i.opcode()) == Opcodes.X)
                    && cls != Opcodes.ST && !i.isLddw() && i.src() == x)) {
                return -1; // rX read or written by anything else
            }
            if (i.isLddw()) q++;
        }
        return -1;
    }

    /** {@code t[pc]}: a jump in {@code [startPc, endPc)} goes to pc. */
    private static boolean[] jumpTargets(Insn[] insns, int startPc, int endPc) {
        boolean[] t = new boolean[insns.length + 1];
        for (int pc = startPc; pc < endPc; pc++) {
            int target = insns[pc].jumpTarget(pc);
            if (target >= 0 && target < t.length) t[target] = true;
            if (insns[pc].isLddw()) pc++;
        }
        return t;
    }

    /**
     * The bytes every frame of a whole program zeroes at entry in the engines whose frames are one
     * off-heap block (the interpreter, the JVM-bytecode engine): one depth for all functions, the
     * deepest either rule asks for anywhere in the program.
     */
    public static int bytesToZeroPerFrame(Insn[] insns, IntPredicate forwardHelper) {
        return Math.max(bytesToZero(insns, 0, insns.length, forwardHelper), deepestAccess(insns, 0, insns.length));
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
