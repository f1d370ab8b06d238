package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.util.ArrayDeque;

/**
 * Which registers' scalar values may still matter, per instruction: a static backward dataflow that stands in
 * for the kernel's precision marks ({@code mark_chain_precision}). A register is <em>needed</em> at an
 * instruction when, on some path from there, its value (or a value computed from it) reaches something the
 * verifier decides on or records: a conditional jump's operands, a memory access's base, a value stored
 * (the stack's bytes are compared exactly), a helper's or subprogram's arguments r1-r5, a callx id, r0 at
 * any exit, an atomic's operands, LD_ABS/LD_IND's r6 and index, and both operands of every register
 * add or subtract (either may be a pointer, whose offset pruning compares exactly).
 *
 * <p>{@link StatePruning} lets an old scalar that is not needed cover any current scalar: every decision
 * from there on reads only needed registers, so the current path takes the decisions the old one took.
 * Unlike the kernel's marks, the sets do not depend on which paths were explored, so a state still being
 * explored (a loop's earlier round) can cover as soundly as a finished one. The sets are per function, for
 * its own frame's registers: callers' frames are compared exactly.
 */
final class PrecisionLiveness {
    /** Bit {@code r}: register r is needed. */
    private final short[] needed;

    private PrecisionLiveness(short[] needed) { this.needed = needed; }

    /** True when the scalar value of {@code r} in the innermost frame may matter from {@code pc} on. */
    boolean needed(int pc, int r) { return (needed[pc] >> r & 1) != 0; }

    /** The mask of needed registers at {@code pc} (bit r for register r). */
    int mask(int pc) { return needed[pc]; }

    static final int ARGS = 0b111110, CALL_CLOBBERED = 0b111111, R0 = 1;

    static PrecisionLiveness of(Insn[] insns, InsnForm[] forms) {
        int n = insns.length;
        int[][] preds = predecessors(insns, forms);
        short[] in = new short[n];
        ArrayDeque<Integer> work = new ArrayDeque<>();
        boolean[] queued = new boolean[n];
        for (int pc = n - 1; pc >= 0; pc--) { // every slot once, last first: most facts flow backwards
            work.add(pc);
            queued[pc] = true;
        }
        while (!work.isEmpty()) {
            int pc = work.poll();
            queued[pc] = false;
            int out = 0;
            for (int s : successors(pc, insns, forms)) out |= in[s];
            short next = (short) transfer(insns[pc], forms[pc], out);
            if (next == in[pc]) continue;
            in[pc] = next;
            for (int p : preds[pc]) {
                if (!queued[p]) {
                    queued[p] = true;
                    work.add(p);
                }
            }
        }
        return new PrecisionLiveness(in);
    }

    /** What is needed before the instruction, given what is needed after it. */
    static int transfer(Insn insn, InsnForm form, int out) {
        int dst = 1 << insn.dst(), src = 1 << insn.src();
        switch (form) {
            case ALU_IMM: case ALU_REG: {
                int op = Opcodes.op(insn.opcode());
                boolean regSrc = form == InsnForm.ALU_REG;
                if (op == Opcodes.MOV) {
                    boolean dstNeeded = (out & dst) != 0;
                    out &= ~dst;
                    return regSrc && dstNeeded ? out | src : out;
                }
                if (regSrc && (op == Opcodes.ADD || op == Opcodes.SUB)) return out | dst | src; // may be pointer arithmetic
                if ((out & dst) == 0) return out; // dst's old value only feeds dst, which nothing needs
                return regSrc ? out | src : out;
            }
            case ALU_UNARY: return out; // dst = f(dst): needed before exactly when after
            case JA: case JA_LONG: return out;
            case JCOND_IMM: return out | dst;
            case JCOND_REG: return out | dst | src;
            case CALL_HELPER: case CALL_LOCAL: return out & ~CALL_CLOBBERED | ARGS; // r0 comes back, r1-r5 unset
            case CALL_REG: return out & ~CALL_CLOBBERED | ARGS | dst;
            case EXIT: return R0;
            case LDDW: return out & ~dst;
            case LDDW_HI: return 0;
            case LD_ABS: return out & ~CALL_CLOBBERED | 1 << 6;
            case LD_IND: return out & ~CALL_CLOBBERED | 1 << 6 | src;
            case LDX: return out & ~dst | src;
            case ST: return out | dst;
            case STX: return out | dst | src;
            case ATOMIC: return out | dst | src | (insn.imm() == Opcodes.CMPXCHG ? R0 : 0);
            default: return CALL_CLOBBERED | 0x7c0; // an unknown form: everything
        }
    }

    /** Where control goes next within the function ({@code call local} continues after its return). */
    private static int[] successors(int pc, Insn[] insns, InsnForm[] forms) {
        InsnForm f = forms[pc];
        int n = insns.length;
        switch (f) {
            case EXIT: case LDDW_HI: return NONE;
            case JA: case JA_LONG: return within(n, ControlFlow.target(pc, f, insns[pc]));
            case JCOND_IMM: case JCOND_REG: {
                long t = ControlFlow.target(pc, f, insns[pc]);
                return t >= 0 && t < n && pc + 1 < n ? new int[] {(int) t, pc + 1} : within(n, t >= 0 && t < n ? t : pc + 1);
            }
            case LDDW: return within(n, pc + 2);
            default: return within(n, pc + 1);
        }
    }

    private static final int[] NONE = {};

    private static int[] within(int n, long pc) { return pc >= 0 && pc < n ? new int[] {(int) pc} : NONE; }

    private static int[][] predecessors(Insn[] insns, InsnForm[] forms) {
        int n = insns.length;
        int[] count = new int[n];
        for (int pc = 0; pc < n; pc++) for (int s : successors(pc, insns, forms)) count[s]++;
        int[][] preds = new int[n][];
        for (int pc = 0; pc < n; pc++) preds[pc] = new int[count[pc]];
        for (int pc = 0; pc < n; pc++) for (int s : successors(pc, insns, forms)) preds[s][--count[s]] = pc;
        return preds;
    }
}
