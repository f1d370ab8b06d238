package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Second pass, the kernel's {@code check_subprogs}: finds the subprograms (pc 0 and every target of
 * a {@code call local}), then checks that every jump and call lands on an instruction inside the
 * program (not on the second slot of an lddw), that no jump leaves its subprogram, and that each
 * subprogram ends with exit or an unconditional jump.
 */
final class ControlFlow {
    private final Reject reject;
    private final Insn[] insns;
    private final InsnForm[] forms;

    ControlFlow(Reject reject, Insn[] insns, InsnForm[] forms) {
        this.reject = reject;
        this.insns = insns;
        this.forms = forms;
    }

    /** Where control goes when a jump, call or {@code lddw src=4} (function address) at {@code pc} takes its target. */
    static long target(int pc, InsnForm form, Insn insn) {
        return form == InsnForm.JA || form == InsnForm.JCOND_IMM || form == InsnForm.JCOND_REG
                ? pc + 1L + insn.off()
                : pc + 1L + insn.imm();
    }

    List<Subprogram> analyze() {
        List<Subprogram> subprograms = subprograms(subprogramStarts());
        checkJumps(subprograms);
        checkExits(subprograms);
        return subprograms;
    }

    /**
     * The kernel's {@code check_cfg}: every instruction must be reachable from pc 0 along the edges of the
     * program text (both sides of every conditional jump, call targets and returns, function addresses), values
     * aside; the first that is not is {@code unreachable insn N}. Only for kernel program types: the conformance
     * suites hold dead code and expect its program's result (docs/verifier.md).
     */
    void checkReachable() {
        BitSet seen = new BitSet(insns.length);
        ArrayDeque<Integer> work = new ArrayDeque<>();
        seen.set(0);
        work.push(0);
        while (!work.isEmpty()) {
            int pc = work.pop();
            InsnForm f = forms[pc];
            boolean funcAddress = f == InsnForm.LDDW && insns[pc].src() == Opcodes.PSEUDO_FUNC;
            if (f.isJump() || f == InsnForm.CALL_LOCAL || funcAddress) visit(seen, work, target(pc, f, insns[pc]));
            if (f == InsnForm.EXIT || f == InsnForm.JA || f == InsnForm.JA_LONG) continue;
            visit(seen, work, pc + (f == InsnForm.LDDW ? 2 : 1));
        }
        for (int pc = 0; pc < insns.length; pc++) {
            if (!seen.get(pc)) {
                throw reject.at(pc, "unreachable insn " + pc + " (no path from pc 0 reaches it; kernel program types allow no dead code)");
            }
            if (forms[pc] == InsnForm.LDDW) pc++;
        }
    }

    private static void visit(BitSet seen, ArrayDeque<Integer> work, long pc) {
        if (pc < 0 || seen.get((int) pc)) return;
        seen.set((int) pc);
        work.push((int) pc);
    }

    private BitSet subprogramStarts() {
        BitSet starts = new BitSet(insns.length);
        starts.set(0);
        for (int pc = 0; pc < insns.length; pc++) {
            InsnForm form = forms[pc];
            boolean funcAddress = form == InsnForm.LDDW && insns[pc].src() == Opcodes.PSEUDO_FUNC;
            if (form != InsnForm.CALL_LOCAL && !funcAddress) continue;
            long target = target(pc, form, insns[pc]);
            String what = funcAddress ? "function address (lddw src=4)" : "call";
            if (target < 0 || target >= insns.length) {
                throw reject.at(pc, what + " target pc " + target + " (pc + 1 + imm=" + insns[pc].imm()
                        + ") is outside the program [0, " + insns.length + ")");
            }
            if (forms[(int) target] == InsnForm.LDDW_HI) {
                throw reject.at(pc, what + " target pc " + target + " is the second slot of the lddw at pc " + (target - 1));
            }
            starts.set((int) target);
        }
        return starts;
    }

    private List<Subprogram> subprograms(BitSet starts) {
        List<Subprogram> out = new ArrayList<>();
        for (int start = 0; start >= 0; ) {
            int next = starts.nextSetBit(start + 1);
            int end = next < 0 ? insns.length : next;
            out.add(new Subprogram(out.size(), start, end));
            start = next;
        }
        return out;
    }

    private void checkJumps(List<Subprogram> subprograms) {
        for (Subprogram sub : subprograms) {
            for (int pc = sub.start(); pc < sub.end(); pc++) {
                if (!forms[pc].isJump()) continue;
                long target = target(pc, forms[pc], insns[pc]);
                String offset = forms[pc] == InsnForm.JA_LONG ? "imm=" + insns[pc].imm() : "off=" + insns[pc].off();
                if (target < 0 || target >= insns.length) {
                    throw reject.at(pc, "jump target pc " + target + " (pc + 1 + " + offset + ") is outside the program [0, "
                            + insns.length + ")");
                }
                if (!sub.contains((int) target)) {
                    throw reject.at(pc, "jump to pc " + target + " leaves subprogram " + sub.index() + " [" + sub.start()
                            + ", " + sub.end() + "): jumps must stay inside their subprogram, use call to enter another");
                }
                if (forms[(int) target] == InsnForm.LDDW_HI) {
                    throw reject.at(pc, "jump into the middle of the lddw at pc " + (target - 1) + " (target pc " + target + ")");
                }
            }
        }
    }

    private void checkExits(List<Subprogram> subprograms) {
        for (Subprogram sub : subprograms) {
            int last = sub.end() - 1;
            if (forms[last].endsFlow()) continue;
            String into = sub.end() == insns.length ? "off the end of the program"
                    : "into subprogram " + (sub.index() + 1) + " at pc " + sub.end();
            throw reject.at(last, "missing exit: the last instruction of subprogram " + sub.index() + " [" + sub.start() + ", "
                    + sub.end() + ") falls through " + into + "; end it with exit or ja");
        }
    }
}
