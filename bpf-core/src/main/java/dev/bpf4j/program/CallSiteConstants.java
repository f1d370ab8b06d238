package dev.bpf4j.program;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * r1 at each helper call, where an {@code lddw r1} in the same basic block set it and nothing in
 * between wrote r1: how clang passes a map ({@code r1 = map[counts] ll; ...; call 1}), and what the
 * JIT needs to inline {@code bpf_map_lookup_elem} on an array. Only straight-line code between
 * the two counts: a slot that a jump or a call enters may be reached with another r1.
 */
public final class CallSiteConstants {
    /** Slots scanned back from a call before giving up. */
    static final int MAX_SCAN = 64;

    private final boolean[] known;
    private final long[] value;

    private CallSiteConstants(int n) {
        known = new boolean[n];
        value = new long[n];
    }

    /** True when r1 is the constant {@link #r1(int)} whenever the helper call at {@code pc} runs. */
    public boolean knows(int pc) { return pc >= 0 && pc < known.length && known[pc]; }

    public long r1(int pc) { return value[pc]; }

    /** The known r1 of every helper call of {@code insns}; {@code functionStarts} are entered by calls (and callbacks). */
    public static CallSiteConstants of(Insn[] insns, int[] functionStarts) {
        int n = insns.length;
        boolean[] entered = new boolean[n + 1], secondSlot = new boolean[n + 1];
        for (int f : functionStarts) if (f >= 0 && f <= n) entered[f] = true;
        for (int pc = 0; pc < n; pc++) {
            int t = insns[pc].jumpTarget(pc);
            if (t >= 0 && t <= n) entered[t] = true;
            if (insns[pc].isLddw() && pc + 1 < n) secondSlot[++pc] = true;
        }
        CallSiteConstants out = new CallSiteConstants(n);
        for (int pc = 0; pc < n; pc++) {
            if (secondSlot[pc] || !isHelperCall(insns[pc])) continue;
            for (int s = pc, steps = 0; !entered[s] && s > 0 && steps < MAX_SCAN; steps++) {
                int prev = secondSlot[s - 1] ? s - 2 : s - 1;
                Insn i = insns[prev];
                if (!RegisterUse.fallsThrough(i)) break;
                if ((RegisterUse.defs(i) & RegisterUse.bit(1)) != 0) {
                    if (i.isLddw() && i.dst() == 1 && i.src() == Opcodes.PSEUDO_IMM64) {
                        out.known[pc] = true;
                        out.value[pc] = i.imm64(insns[prev + 1]);
                    }
                    break;
                }
                s = prev;
            }
        }
        return out;
    }

    /** {@code call imm} of a helper (not callx, whose helper id is in a register). */
    public static boolean isHelperCall(Insn i) {
        return i.opcode() == (Opcodes.JMP | Opcodes.CALL | Opcodes.K) && i.src() == Opcodes.CALL_HELPER;
    }
}
