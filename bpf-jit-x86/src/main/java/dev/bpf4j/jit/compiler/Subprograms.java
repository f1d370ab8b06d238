package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** Splits a program into functions: subprograms start at the targets of {@code call local}. */
final class Subprograms {
    private Subprograms() {}

    static boolean isLocalCall(Insn i) {
        return i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.PSEUDO_CALL;
    }

    /** {@code lddw rX, src=4}: the address of a function, for callbacks (bpf_loop, bpf_for_each_map_elem). */
    static boolean isFunctionAddress(Insn i) {
        return i.opcode() == Opcodes.LDDW && i.src() == Opcodes.PSEUDO_FUNC;
    }

    /** A call local or function address: both name a function starting at pc + 1 + imm. */
    private static boolean namesFunction(Insn i) { return isLocalCall(i) || isFunctionAddress(i); }

    /** True when some {@code call local} targets pc 0: the main program is then also called as a function. */
    static boolean mainIsCalled(Insn[] insns) {
        for (int pc = 0; pc < insns.length; pc++) {
            if (namesFunction(insns[pc]) && (long) pc + insns[pc].imm() + 1 == 0) return true;
            if (insns[pc].isLddw()) pc++;
        }
        return false;
    }

    static List<FunctionSpan> split(String program, Insn[] insns) {
        TreeSet<Integer> starts = new TreeSet<>();
        starts.add(0);
        boolean[] secondSlot = new boolean[insns.length + 1];
        for (int pc = 0; pc < insns.length; pc++) if (insns[pc].isLddw()) secondSlot[++pc] = true;
        for (int pc = 0; pc < insns.length; pc++) {
            if (namesFunction(insns[pc])) {
                long target = (long) pc + insns[pc].imm() + 1;
                String what = isLocalCall(insns[pc]) ? "call local target " : "function address (lddw src=4) target ";
                if (target < 0 || target >= insns.length) {
                    throw new BpfLoadException("program '" + program + "' pc " + pc + ": " + what + target + " is outside the program");
                }
                if (secondSlot[(int) target]) {
                    throw new BpfLoadException("program '" + program + "' pc " + pc + ": " + what + target + " is the second slot of an lddw");
                }
                starts.add((int) target);
            }
            if (insns[pc].isLddw()) pc++;
        }
        List<FunctionSpan> spans = new ArrayList<>();
        Integer[] s = starts.toArray(new Integer[0]);
        for (int i = 0; i < s.length; i++) {
            spans.add(new FunctionSpan(i, s[i], i + 1 < s.length ? s[i + 1] : insns.length));
        }
        return spans;
    }
}
