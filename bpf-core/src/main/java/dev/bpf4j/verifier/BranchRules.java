package dev.bpf4j.verifier;

import dev.bpf4j.isa.Opcodes;

/**
 * Conditional jumps on scalars: whether a comparison is decided by the operands' bounds
 * ({@code is_branch_taken}), and how each branch narrows them ({@code reg_set_min_max}). A 32-bit
 * comparison is followed only where both operands fit in 31 bits, so that it equals the 64-bit one.
 */
final class BranchRules {
    private BranchRules() {}

    static final int UNKNOWN = -1, NEVER = 0, ALWAYS = 1;

    /** Whether {@code a op b} holds on every path, none, or is open. */
    static int decide(int op, boolean jmp32, RegState a, RegState b) {
        if (jmp32 && !(fits31(a) && fits31(b))) {
            if (a.isConst() && b.isConst()) return dev.bpf4j.isa.JmpOps.holds(op, true, a.smin, b.smin) ? ALWAYS : NEVER;
            return UNKNOWN;
        }
        if (a.isConst() && b.isConst()) return dev.bpf4j.isa.JmpOps.holds(op, jmp32, a.smin, b.smin) ? ALWAYS : NEVER;
        if (!feasible(op, a, b)) return NEVER;
        if (!feasible(negate(op), a, b)) return ALWAYS;
        return UNKNOWN;
    }

    /** Narrows {@code a} and {@code b} to the values for which {@code a op b} is {@code taken}. */
    static void refine(int op, boolean jmp32, boolean taken, RegState a, RegState b) {
        if (jmp32 && !(fits31(a) && fits31(b))) return;
        int o = taken ? op : negate(op);
        if (o < 0) return;
        narrow(o, a, b);
        a.sync();
        b.sync();
    }

    private static boolean fits31(RegState r) { return r.umax >= 0 && r.umax <= Integer.MAX_VALUE; }

    static int negate(int op) { return dev.bpf4j.isa.JmpOps.negate(op); }

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
                if (b.isConst()) excludeConst(a, b.smin);
                else if (a.isConst()) excludeConst(b, a.smin);
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

    private static void excludeConst(RegState r, long v) {
        if (r.isConst() && r.smin == v) { r.smin = 1; r.smax = 0; return; } // a == v is all it can be
        if (r.smin == v) r.smin++;
        if (r.smax == v) r.smax--;
        if (r.umin == v) r.umin++;
        if (r.umax == v) r.umax--;
    }

    private static long umax(long x, long y) { return Long.compareUnsigned(x, y) >= 0 ? x : y; }

    private static long umin(long x, long y) { return Long.compareUnsigned(x, y) <= 0 ? x : y; }
}
