package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.JmpOps;

/**
 * Conditional jumps: which edges are feasible and what each edge teaches about the compared
 * scalars. Refinement is done only where signed and unsigned order agree with the intervals:
 * signed compares on any scalars; unsigned compares when both sides are non-negative; 32-bit
 * compares when both sides lie in {@code [0, 2^31)} (then every width and signedness agrees).
 * Anything else (frame pointers, mixed signs, JSET) keeps both edges unrefined.
 */
final class BranchRefinement {
    private BranchRefinement() {}

    /** The state on the taken edge ({@code taken}) or the fall-through edge, or null when infeasible. */
    static AbstractState edge(AbstractState s, Insn i, boolean taken) {
        int op = Opcodes.op(i.opcode());
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        boolean jmp32 = i.cls() == Opcodes.JMP32;
        int d = i.dst(), src = i.src();
        AbstractState region = RegionTransfer.edge(s, i, taken);
        if (region != RegionTransfer.NOT_CONCERNED) return region;
        if (s.isPointer(d) || (x && s.isPointer(src)) || op == Opcodes.JSET) return s.copy();
        long al = s.lo(d), ah = s.hi(d);
        long bl = x ? s.lo(src) : jmp32 ? i.imm() & 0xffffffffL : i.imm();
        long bh = x ? s.hi(src) : jmp32 ? i.imm() & 0xffffffffL : i.imm();
        boolean unsignedOp = op == Opcodes.JGT || op == Opcodes.JGE || op == Opcodes.JLT || op == Opcodes.JLE;
        if (jmp32) {
            // In [0, 2^31) every width and signedness agrees; in [0, 2^32) the unsigned ones do.
            long limit = unsignedOp || op == Opcodes.JEQ || op == Opcodes.JNE ? 0xffffffffL : Integer.MAX_VALUE;
            if (al < 0 || ah > limit || bl < 0 || bh > limit) return s.copy();
        } else if (unsignedOp && (al < 0 || bl < 0)) {
            return unsignedUpperBound(s, i, taken ? op : negate(op), d, x ? src : -1, al, ah, bl, bh);
        }
        // Normalise to "a REL b" holding on this edge.
        int rel = taken ? op : negate(op);
        long[] a = {al, ah}, b = {bl, bh};
        if (!refine(rel, a, b)) return null;
        AbstractState out = s.copy();
        if (x && src == d) {
            long l = Math.max(a[0], b[0]), h = Math.min(a[1], b[1]);
            if (l > h) return null;
            a[0] = b[0] = l;
            a[1] = b[1] = h;
        }
        if (!narrow(out, d, a)) return null;
        if (x && !narrow(out, src, b)) return null;
        return out;
    }

    /** Sets register r to {@code [v[0], v[1]]}; len is narrowed where all its copies see it. */
    private static boolean narrow(AbstractState out, int r, long[] v) {
        if (out.kind(r) == AbstractState.LEN) return out.narrowLen(v[0], v[1]);
        out.setScalar(r, v[0], v[1]);
        return true;
    }

    /**
     * An unsigned compare where one side may be negative (a huge unsigned value): only
     * {@code a <u b} / {@code a <=u b} with b non-negative teaches something, namely a in
     * {@code [0, b]} (and the mirrored case for b).
     */
    private static AbstractState unsignedUpperBound(AbstractState s, Insn i, int rel, int d, int src,
                                                   long al, long ah, long bl, long bh) {
        AbstractState out = s.copy();
        int strict = rel == Opcodes.JLT || rel == Opcodes.JGT ? 1 : 0;
        boolean aBelowB = rel == Opcodes.JLT || rel == Opcodes.JLE;
        if (aBelowB && bl >= 0 && src != d) {          // a <u b <= bh: a in [0, bh - strict]
            long h = Math.min(ah, bh - strict);
            if (h < 0) return null;
            out.setScalar(d, 0, h);
        } else if (!aBelowB && al >= 0 && src >= 0 && src != d) { // b <u a <= ah: b in [0, ah - strict]
            long h = Math.min(bh, ah - strict);
            if (h < 0) return null;
            out.setScalar(src, 0, h);
        }
        return out;
    }

    static int negate(int op) {
        int n = JmpOps.negate(op);
        if (n < 0) throw new IllegalArgumentException("jump op 0x" + Integer.toHexString(op));
        return n;
    }

    /** Narrows a and b so that {@code a rel b} holds; false when it cannot hold. */
    private static boolean refine(int rel, long[] a, long[] b) {
        switch (rel) {
            case Opcodes.JEQ: {
                long l = Math.max(a[0], b[0]), h = Math.min(a[1], b[1]);
                if (l > h) return false;
                a[0] = b[0] = l;
                a[1] = b[1] = h;
                return true;
            }
            case Opcodes.JNE:
                if (a[0] == a[1] && b[0] == b[1] && a[0] == b[0]) return false;
                if (b[0] == b[1]) { if (a[0] == b[0]) a[0]++; else if (a[1] == b[0]) a[1]--; }
                if (a[0] == a[1]) { if (b[0] == a[0]) b[0]++; else if (b[1] == a[0]) b[1]--; }
                return a[0] <= a[1] && b[0] <= b[1];
            case Opcodes.JGT: case Opcodes.JSGT: return less(b, a, 1);
            case Opcodes.JGE: case Opcodes.JSGE: return less(b, a, 0);
            case Opcodes.JLT: case Opcodes.JSLT: return less(a, b, 1);
            case Opcodes.JLE: case Opcodes.JSLE: return less(a, b, 0);
            default: throw new IllegalArgumentException("jump op 0x" + Integer.toHexString(rel));
        }
    }

    /** Narrows so that {@code a + strict <= b} (strict 1: a < b; 0: a <= b). */
    private static boolean less(long[] a, long[] b, int strict) {
        if (strict == 1 && (b[1] == Long.MIN_VALUE || a[0] == Long.MAX_VALUE)) return false;
        a[1] = Math.min(a[1], b[1] - strict);
        b[0] = Math.max(b[0], a[0] + strict);
        return a[0] <= a[1] && b[0] <= b[1];
    }
}
