package dev.bpf4j.jit.analysis;

import dev.bpf4j.program.RegisterUse;
import dev.bpf4j.isa.Insn;

/**
 * Which registers are live (may be read before they are written) after each instruction of one
 * function: the classic backward data-flow over its control-flow graph. A function returns r0
 * only: r6–r9 are callee-saved by every engine, so the caller never sees the callee's values.
 */
final class Liveness {
    private final int[] liveIn;
    private final int startPc, endPc;
    private final Insn[] insns;

    private static final int ALL = (1 << 11) - 1;

    private Liveness(Insn[] insns, int startPc, int endPc) {
        this.insns = insns;
        this.startPc = startPc;
        this.endPc = endPc;
        this.liveIn = new int[insns.length + 1];
    }

    /** Passes over a function before giving up (loops converge in a few; null then). */
    static final int MAX_PASSES = 64;

    /** The liveness of the function {@code [startPc, endPc)}, or null when it did not converge. */
    static Liveness of(Insn[] insns, int startPc, int endPc) {
        Liveness l = new Liveness(insns, startPc, endPc);
        boolean[] secondSlot = new boolean[insns.length + 1];
        for (int pc = startPc; pc < endPc; pc++) if (insns[pc].isLddw()) secondSlot[++pc] = true;
        int passes = 0;
        for (boolean changed = true; changed; ) {
            if (++passes > MAX_PASSES) return null;
            changed = false;
            for (int pc = endPc - 1; pc >= startPc; pc--) {
                if (secondSlot[pc]) continue;
                Insn i = insns[pc];
                int in = RegisterUse.uses(i) | (l.liveOut(pc) & ~RegisterUse.defs(i));
                if (in != l.liveIn[pc]) {
                    l.liveIn[pc] = in;
                    changed = true;
                }
            }
        }
        return l;
    }

    /** Registers (bit n = rn) that some path from after {@code pc} reads before writing. */
    int liveOut(int pc) {
        Insn i = insns[pc];
        int out = 0;
        if (RegisterUse.fallsThrough(i)) out |= liveInAt(pc + RegisterUse.width(i));
        int target = i.jumpTarget(pc);
        if (target >= 0) out |= liveInAt(target);
        return out;
    }

    private int liveInAt(int pc) {
        // Leaving the function other than by exit: the validator rejects it; assume everything live.
        return pc >= startPc && pc < endPc ? liveIn[pc] : ALL;
    }
}
