package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;

import java.util.List;

/**
 * Last pass: a forward must-be-initialised dataflow over each subprogram's control-flow graph.
 * The state at a pc is the set of registers written on every path to it (intersection over
 * predecessors), so loops converge in a few rounds of a worklist. Reading a register outside that
 * set is rejected, like the kernel's "R%d !read_ok". Runs after {@link ControlFlow}, so every
 * successor is known to be a valid pc inside the same subprogram.
 */
final class RegisterInitAnalysis {
    private final Reject reject;
    private final Insn[] insns;
    private final InsnForm[] forms;
    private final int[] in;
    private final boolean[] reached;

    RegisterInitAnalysis(Reject reject, Insn[] insns, InsnForm[] forms) {
        this.reject = reject;
        this.insns = insns;
        this.forms = forms;
        this.in = new int[insns.length];
        this.reached = new boolean[insns.length];
    }

    /** r1..r{entryArgs} and r10 at the main program's entry. */
    static int mainEntry(int entryArgs) { return ((1 << (entryArgs + 1)) - 2) | RegisterEffects.R10; }

    /** r1-r5 and r10 at a subprogram's entry. */
    static final int SUBPROGRAM_ENTRY = RegisterEffects.CALLER_SAVED | RegisterEffects.R10;

    void check(List<Subprogram> subprograms, int entryArgs) {
        IntWorklist work = new IntWorklist(insns.length);
        for (Subprogram sub : subprograms) {
            reached[sub.start()] = true;
            in[sub.start()] = sub.start() == 0 ? mainEntry(entryArgs) : SUBPROGRAM_ENTRY;
            work.push(sub.start());
        }
        while (!work.isEmpty()) {
            int pc = work.pop();
            int out = RegisterEffects.transfer(forms[pc], insns[pc], in[pc]);
            switch (forms[pc]) {
                case EXIT: break;
                case JA: case JA_LONG: flow(work, target(pc), out); break;
                case JCOND_IMM: case JCOND_REG: flow(work, pc + 1, out); flow(work, target(pc), out); break;
                case LDDW: flow(work, pc + 2, out); break;
                default: flow(work, pc + 1, out);
            }
        }
        reportFirstUninitialisedRead(entryArgs);
    }

    private int target(int pc) { return (int) ControlFlow.target(pc, forms[pc], insns[pc]); }

    private void flow(IntWorklist work, int succ, int state) {
        if (!reached[succ]) {
            reached[succ] = true;
            in[succ] = state;
            work.push(succ);
        } else if ((in[succ] & state) != in[succ]) {
            in[succ] &= state;
            work.push(succ);
        }
    }

    private void reportFirstUninitialisedRead(int entryArgs) {
        for (int pc = 0; pc < insns.length; pc++) {
            if (!reached[pc]) continue; // dead code reads nothing at run time
            int missing = RegisterEffects.reads(forms[pc], insns[pc]) & ~in[pc];
            if (missing == 0) continue;
            int reg = Integer.numberOfTrailingZeros(missing);
            String reason = forms[pc] == InsnForm.EXIT && reg == 0
                    ? "r0 (the return value) is not initialised on every path to this exit: set r0 before exit"
                    : "r" + reg + " is read but not initialised on every path to this instruction: write it first";
            if (reg >= 1 && reg <= 5) reason += " (" + entryHint(entryArgs) + "calls clobber r1-r5)";
            throw reject.at(pc, reason);
        }
    }

    private static String entryHint(int entryArgs) {
        if (entryArgs == 0) return "the main program starts with only r10 set; ";
        return "the main program starts with " + (entryArgs == 1 ? "r1" : "r1-r" + entryArgs) + " and r10 set; ";
    }

    /** A stack of pcs that holds each pc at most once. */
    private static final class IntWorklist {
        private final int[] items;
        private final boolean[] queued;
        private int size;

        IntWorklist(int capacity) {
            items = new int[capacity];
            queued = new boolean[capacity];
        }

        void push(int pc) {
            if (queued[pc]) return;
            queued[pc] = true;
            items[size++] = pc;
        }

        int pop() {
            int pc = items[--size];
            queued[pc] = false;
            return pc;
        }

        boolean isEmpty() { return size == 0; }
    }
}
