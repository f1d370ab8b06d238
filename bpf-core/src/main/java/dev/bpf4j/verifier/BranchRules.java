package dev.bpf4j.verifier;

import dev.bpf4j.isa.JmpOps;
import dev.bpf4j.isa.Opcodes;

/**
 * Conditional jumps on scalars: whether a comparison is decided by the operands' bounds and known
 * bits ({@code is_branch_taken}), and how each branch narrows them ({@code reg_set_min_max},
 * {@code regs_refine_cond_op}). A 64-bit comparison works on the 64-bit bounds, a 32-bit one
 * (JMP32) on the 32-bit bounds; the other bounds then follow through {@link RegState#sync()}.
 */
final class BranchRules {
    private BranchRules() {}

    static final int UNKNOWN = -1, NEVER = 0, ALWAYS = 1;
    private static final long U32_MAX = 0xffffffffL;

    /** Whether {@code a op b} holds on every path, none, or is open. */
    static int decide(int op, boolean jmp32, RegState a, RegState b) {
        if (jmp32 ? a.u32min == a.u32max && b.u32min == b.u32max : a.isConst() && b.isConst()) {
            return JmpOps.holds(op, jmp32, jmp32 ? a.u32min : a.smin, jmp32 ? b.u32min : b.smin) ? ALWAYS : NEVER;
        }
        Tnum ta = jmp32 ? a.tnum.subreg() : a.tnum, tb = jmp32 ? b.tnum.subreg() : b.tnum;
        if (op == Opcodes.JSET) {
            if ((ta.value() & tb.value()) != 0) return ALWAYS; // a bit known set in both
            if (((ta.value() | ta.mask()) & (tb.value() | tb.mask())) == 0) return NEVER;
            return UNKNOWN;
        }
        if ((op == Opcodes.JEQ || op == Opcodes.JNE) && ((ta.value() ^ tb.value()) & ~(ta.mask() | tb.mask())) != 0) {
            return op == Opcodes.JEQ ? NEVER : ALWAYS; // a known bit differs
        }
        RegState x = view(a, jmp32), y = view(b, jmp32);
        if (!feasible(op, x, y)) return NEVER;
        if (!feasible(negate(op), x, y)) return ALWAYS;
        return UNKNOWN;
    }

    /** Narrows {@code a} and {@code b} to the values for which {@code a op b} is {@code taken}. */
    static void refine(int op, boolean jmp32, boolean taken, RegState a, RegState b) {
        if (op == Opcodes.JSET) {
            refineJset(jmp32, taken, a, b);
            refineJset(jmp32, taken, b, a);
            return;
        }
        int o = taken ? op : negate(op);
        if (o < 0) return;
        RegState x = view(a, jmp32), y = view(b, jmp32);
        narrow(o, x, y);
        if (jmp32) {
            store(x, a, true);
            store(y, b, true);
        }
        if (o == Opcodes.JEQ) { // equal values: the known bits of both
            if (jmp32) {
                Tnum t = a.tnum.subreg().intersect(b.tnum.subreg());
                a.tnum = a.tnum.withSubreg(t);
                b.tnum = b.tnum.withSubreg(t);
            } else {
                a.tnum = b.tnum = a.tnum.intersect(b.tnum);
            }
        }
        a.sync();
        b.sync();
    }

    /** {@code r & k} is non-zero ({@code taken}) or zero for a constant {@code k}: a single bit known set, or every bit of k clear. */
    private static void refineJset(boolean jmp32, boolean taken, RegState r, RegState k) {
        if (jmp32 ? k.u32min != k.u32max : !k.isConst()) return;
        long val = jmp32 ? k.u32min : k.smin;
        Tnum t = jmp32 ? r.tnum.subreg() : r.tnum;
        if (taken) {
            if (Long.bitCount(val) != 1) return;
            t = t.or(Tnum.constant(val));
        } else {
            t = t.and(Tnum.constant(~val));
        }
        r.tnum = jmp32 ? r.tnum.withSubreg(t) : t;
        r.sync();
    }

    /** The bounds a comparison of the width reads, as a range pair (the 32-bit ones: s32 sign-, u32 zero-extended). */
    private static RegState view(RegState r, boolean jmp32) {
        if (!jmp32) return r; // the 64-bit bounds are the register's own (callers copy before they narrow)
        RegState v = r.copy();
        {
            v.smin = r.s32min;
            v.smax = r.s32max;
            v.umin = r.u32min;
            v.umax = r.u32max;
        }
        return v;
    }

    private static void store(RegState v, RegState r, boolean jmp32) {
        if (jmp32) {
            r.s32min = v.smin;
            r.s32max = v.smax;
            r.u32min = v.umin;
            r.u32max = v.umax;
        } else {
            r.smin = v.smin;
            r.smax = v.smax;
            r.umin = v.umin;
            r.umax = v.umax;
        }
    }

    static int negate(int op) { return JmpOps.negate(op); }

    /** False when no pair of values in the bounds satisfies {@code a op b}. */
    private static boolean feasible(int op, RegState a, RegState b) {
        if (op < 0) return true;
        RegState x = a.copy(), y = b.copy();
        narrow(op, x, y);
        return !empty(x) && !empty(y);
    }

    private static boolean empty(RegState r) { return r.smin > r.smax || Long.compareUnsigned(r.umin, r.umax) > 0; }

    private static void narrow(int op, RegState a, RegState b) {
        switch (op) {
            case Opcodes.JEQ:
                a.smin = b.smin = Math.max(a.smin, b.smin);
                a.smax = b.smax = Math.min(a.smax, b.smax);
                a.umin = b.umin = umax(a.umin, b.umin);
                a.umax = b.umax = umin(a.umax, b.umax);
                break;
            case Opcodes.JNE:
                if (b.smin == b.smax && b.umin == b.umax) excludeConst(a, b.smin, b.umin);
                else if (a.smin == a.smax && a.umin == a.umax) excludeConst(b, a.smin, a.umin);
                break;
            case Opcodes.JGT: unsignedLess(b, a, true); break;
            case Opcodes.JGE: unsignedLess(b, a, false); break;
            case Opcodes.JLT: unsignedLess(a, b, true); break;
            case Opcodes.JLE: unsignedLess(a, b, false); break;
            case Opcodes.JSGT: signedLess(b, a, true); break;
            case Opcodes.JSGE: signedLess(b, a, false); break;
            case Opcodes.JSLT: signedLess(a, b, true); break;
            case Opcodes.JSLE: signedLess(a, b, false); break;
            default: break; // JSET: nothing cheap to learn
        }
    }

    /** {@code lo < hi} (strict) or {@code lo <= hi}, unsigned. */
    private static void unsignedLess(RegState lo, RegState hi, boolean strict) {
        if (strict) {
            if (hi.umax == 0 || lo.umin == -1L) { lo.umin = 1; lo.umax = 0; return; } // impossible
            lo.umax = umin(lo.umax, hi.umax - 1);
            hi.umin = umax(hi.umin, lo.umin + 1);
        } else {
            lo.umax = umin(lo.umax, hi.umax);
            hi.umin = umax(hi.umin, lo.umin);
        }
    }

    private static void signedLess(RegState lo, RegState hi, boolean strict) {
        if (strict) {
            if (hi.smax == Long.MIN_VALUE || lo.smin == Long.MAX_VALUE) { lo.smin = 1; lo.smax = 0; return; }
            lo.smax = Math.min(lo.smax, hi.smax - 1);
            hi.smin = Math.max(hi.smin, lo.smin + 1);
        } else {
            lo.smax = Math.min(lo.smax, hi.smax);
            hi.smin = Math.max(hi.smin, lo.smin);
        }
    }

    /** {@code r != v}, v being {@code sv} signed and {@code uv} unsigned (they differ in a 32-bit view). */
    private static void excludeConst(RegState r, long sv, long uv) {
        if (r.smin == r.smax && r.smin == sv) { r.smin = 1; r.smax = 0; return; } // a == v is all it can be
        if (r.smin == sv) r.smin++;
        if (r.smax == sv) r.smax--;
        if (r.umin == uv) r.umin++;
        if (r.umax == uv) r.umax--;
    }

    private static long umax(long x, long y) { return Long.compareUnsigned(x, y) >= 0 ? x : y; }

    private static long umin(long x, long y) { return Long.compareUnsigned(x, y) <= 0 ? x : y; }
}
