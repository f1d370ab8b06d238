package dev.bpf4j.verifier;

import dev.bpf4j.isa.AluOps;
import dev.bpf4j.isa.Opcodes;

/**
 * Arithmetic on scalar bounds ({@code adjust_scalar_min_max_vals}): constants fold exactly through
 * {@link AluOps}, the RFC 9669 semantics both engines run; add, sub, mul, and, or, xor and shifts by
 * a constant follow the kernel, on the 64-bit bounds, the 32-bit bounds and the known bits
 * ({@link Tnum}) at once; an ALU32 result is its low half zero-extended ({@code zext_32_to_64}).
 * Unsigned div and mod keep a range bpf4j has always followed (Linux forgets it); the rest becomes
 * unknown.
 */
final class ScalarAlu {
    private ScalarAlu() {}

    private static final long U32_MAX = 0xffffffffL;

    /** {@code dst = dst op src} for {@code op} (an ALU operation code) on scalars; {@code off} 1 = signed div/mod. */
    static void apply(int op, boolean alu64, int off, RegState dst, RegState src) {
        if (alu64 ? dst.isConst() && src.isConst() : dst.u32min == dst.u32max && src.u32min == src.u32max) {
            dst.markConst(fold(op, alu64, off, alu64 ? dst.smin : dst.u32min, alu64 ? src.smin : src.u32min));
            return;
        }
        switch (op) {
            case Opcodes.ADD:
                add32(dst, src);
                add64(dst, src);
                dst.tnum = dst.tnum.add(src.tnum);
                break;
            case Opcodes.SUB:
                sub32(dst, src);
                sub64(dst, src);
                dst.tnum = dst.tnum.sub(src.tnum);
                break;
            case Opcodes.MUL:
                mul32(dst, src);
                mul64(dst, src);
                dst.tnum = dst.tnum.mul(src.tnum);
                break;
            case Opcodes.AND: case Opcodes.OR: case Opcodes.XOR:
                bitwise(op, dst, src);
                break;
            case Opcodes.LSH: case Opcodes.RSH: case Opcodes.ARSH: {
                if (alu64 ? !src.isConst() : src.u32min != src.u32max) { unknown(dst, alu64); return; }
                int k = (int) ((alu64 ? src.umin : src.u32min) & (alu64 ? 63 : 31)); // the RFC masks the amount
                if (alu64) shift64(op, k, dst); else shift32(op, k, dst);
                break;
            }
            case Opcodes.DIV: case Opcodes.MOD:
                if (off != 0) { unknown(dst, alu64); return; }
                divMod(op, alu64, dst, src);
                return;
            default: // neg and the like
                unknown(dst, alu64);
                return;
        }
        if (!alu64) dst.zext32();
        dst.sync();
    }

    // ---- add, sub, mul: scalar32_min_max_* and scalar_min_max_* ----

    private static void add32(RegState d, RegState s) {
        setS32(d, d.s32min + s.s32min, d.s32max + s.s32max);
        long lo = d.u32min + s.u32min, hi = d.u32max + s.u32max;
        if (lo > U32_MAX) { lo -= 1L << 32; hi -= 1L << 32; } // every sum wraps once
        setU32(d, lo, hi);
    }

    private static void add64(RegState d, RegState s) {
        long slo = d.smin + s.smin, shi = d.smax + s.smax;
        boolean overflows = addOverflows(d.smin, s.smin, slo) || addOverflows(d.smax, s.smax, shi);
        d.smin = overflows ? Long.MIN_VALUE : slo;
        d.smax = overflows ? Long.MAX_VALUE : shi;
        long lo = d.umin + s.umin, hi = d.umax + s.umax;
        boolean carryLo = Long.compareUnsigned(lo, d.umin) < 0, carryHi = Long.compareUnsigned(hi, d.umax) < 0;
        if (carryLo == carryHi) { // no sum wraps, or every one does
            d.umin = lo;
            d.umax = hi;
        } else {
            d.umin = 0;
            d.umax = -1L;
        }
    }

    private static void sub32(RegState d, RegState s) {
        setS32(d, d.s32min - s.s32max, d.s32max - s.s32min);
        long lo = d.u32min - s.u32max, hi = d.u32max - s.u32min;
        if (hi < 0) { lo += 1L << 32; hi += 1L << 32; } // every difference wraps once
        setU32(d, lo, hi);
    }

    private static void sub64(RegState d, RegState s) {
        long slo = d.smin - s.smax, shi = d.smax - s.smin;
        boolean overflows = subOverflows(d.smin, s.smax, slo) || subOverflows(d.smax, s.smin, shi);
        d.smin = overflows ? Long.MIN_VALUE : slo;
        d.smax = overflows ? Long.MAX_VALUE : shi;
        boolean noneWrap = Long.compareUnsigned(d.umin, s.umax) >= 0, allWrap = Long.compareUnsigned(d.umax, s.umin) < 0;
        if (noneWrap || allWrap) {
            long lo = d.umin - s.umax, hi = d.umax - s.umin;
            d.umin = lo;
            d.umax = hi;
        } else {
            d.umin = 0;
            d.umax = -1L;
        }
    }

    private static void mul32(RegState d, RegState s) {
        long a = d.s32min * s.s32min, b = d.s32min * s.s32max, c = d.s32max * s.s32min, e = d.s32max * s.s32max;
        setS32(d, Math.min(Math.min(a, b), Math.min(c, e)), Math.max(Math.max(a, b), Math.max(c, e)));
        long hi = d.u32max * s.u32max; // < 2^64: compared unsigned
        if (Long.compareUnsigned(hi, U32_MAX) > 0) setU32(d, 0, Long.MAX_VALUE);
        else setU32(d, d.u32min * s.u32min, hi);
    }

    private static void mul64(RegState d, RegState s) {
        long a = d.smin * s.smin, b = d.smin * s.smax, c = d.smax * s.smin, e = d.smax * s.smax;
        boolean overflows = mulOverflows(d.smin, s.smin, a) || mulOverflows(d.smin, s.smax, b)
                || mulOverflows(d.smax, s.smin, c) || mulOverflows(d.smax, s.smax, e);
        d.smin = overflows ? Long.MIN_VALUE : Math.min(Math.min(a, b), Math.min(c, e));
        d.smax = overflows ? Long.MAX_VALUE : Math.max(Math.max(a, b), Math.max(c, e));
        boolean fits = d.umax == 0 || Long.compareUnsigned(s.umax, Long.divideUnsigned(-1L, d.umax)) <= 0;
        if (fits) {
            d.umin = d.umin * s.umin;
            d.umax = d.umax * s.umax;
        } else {
            d.umin = 0;
            d.umax = -1L;
        }
    }

    // Overflow tests without Math.*Exact: bounds overflow all the time in loops, and a thrown
    // ArithmeticException per instruction made the verifier several times slower there.

    /** {@code sum = x + y} wrapped. */
    static boolean addOverflows(long x, long y, long sum) { return ((x ^ sum) & (y ^ sum)) < 0; }

    /** {@code diff = x - y} wrapped. */
    static boolean subOverflows(long x, long y, long diff) { return ((x ^ y) & (x ^ diff)) < 0; }

    /** {@code product = x * y} wrapped. */
    static boolean mulOverflows(long x, long y, long product) { return Math.multiplyHigh(x, y) != (product >> 63); }

    /** s32 bounds [lo, hi] when both fit, else unbounded. */
    private static void setS32(RegState d, long lo, long hi) {
        if (lo < Integer.MIN_VALUE || hi > Integer.MAX_VALUE) {
            d.s32min = Integer.MIN_VALUE;
            d.s32max = Integer.MAX_VALUE;
        } else {
            d.s32min = lo;
            d.s32max = hi;
        }
    }

    /** u32 bounds [lo, hi] when both fit, else unbounded. */
    private static void setU32(RegState d, long lo, long hi) {
        if (lo < 0 || hi > U32_MAX) {
            d.u32min = 0;
            d.u32max = U32_MAX;
        } else {
            d.u32min = lo;
            d.u32max = hi;
        }
    }

    // ---- and, or, xor: the known bits first, then the bounds they allow ----

    private static void bitwise(int op, RegState d, RegState s) {
        Tnum t = op == Opcodes.AND ? d.tnum.and(s.tnum) : op == Opcodes.OR ? d.tnum.or(s.tnum) : d.tnum.xor(s.tnum);
        Tnum t32 = t.subreg();
        boolean nonNeg32 = d.s32min >= 0 && s.s32min >= 0, nonNeg64 = d.smin >= 0 && s.smin >= 0;
        long u32lo, u32hi, ulo, uhi;
        switch (op) {
            case Opcodes.AND:
                u32lo = t32.value();
                u32hi = Math.min(d.u32max, s.u32max);
                ulo = t.value();
                uhi = RegState.umin(d.umax, s.umax);
                break;
            case Opcodes.OR:
                u32lo = Math.max(d.u32min, s.u32min);
                u32hi = t32.value() | t32.mask();
                ulo = RegState.umax(d.umin, s.umin);
                uhi = t.value() | t.mask();
                break;
            default:
                u32lo = t32.value();
                u32hi = t32.value() | t32.mask();
                ulo = t.value();
                uhi = t.value() | t.mask();
        }
        d.tnum = t;
        d.u32min = u32lo;
        d.u32max = u32hi;
        if (nonNeg32) { d.s32min = u32lo; d.s32max = u32hi; } else { d.s32min = Integer.MIN_VALUE; d.s32max = Integer.MAX_VALUE; }
        d.umin = ulo;
        d.umax = uhi;
        if (nonNeg64) { d.smin = ulo; d.smax = uhi; } else { d.smin = Long.MIN_VALUE; d.smax = Long.MAX_VALUE; }
    }

    // ---- shifts by a constant ----

    private static void shift64(int op, int k, RegState d) {
        long smin = Long.MIN_VALUE, smax = Long.MAX_VALUE, umin = 0, umax = -1L;
        if (op == Opcodes.LSH) {
            d.tnum = d.tnum.lshift(k);
            if (k == 0 || Long.compareUnsigned(d.umax, -1L >>> k) <= 0) { umin = d.umin << k; umax = d.umax << k; }
        } else if (op == Opcodes.RSH) {
            d.tnum = d.tnum.rshift(k);
            umin = d.umin >>> k;
            umax = d.umax >>> k;
        } else {
            d.tnum = d.tnum.arshift(k, false);
            smin = d.smin >> k;
            smax = d.smax >> k;
        }
        d.smin = smin;
        d.smax = smax;
        d.umin = umin;
        d.umax = umax;
        d.unbound32();
    }

    private static void shift32(int op, int k, RegState d) {
        Tnum sub = d.tnum.subreg();
        long s32min = Integer.MIN_VALUE, s32max = Integer.MAX_VALUE, u32min = 0, u32max = U32_MAX;
        if (op == Opcodes.LSH) {
            d.tnum = sub.lshift(k).subreg();
            if (d.u32max <= (U32_MAX >>> k)) { u32min = d.u32min << k; u32max = d.u32max << k; }
        } else if (op == Opcodes.RSH) {
            d.tnum = sub.rshift(k);
            u32min = d.u32min >>> k;
            u32max = d.u32max >>> k;
        } else {
            d.tnum = sub.arshift(k, true);
            s32min = d.s32min >> k;
            s32max = d.s32max >> k;
        }
        d.s32min = s32min;
        d.s32max = s32max;
        d.u32min = u32min;
        d.u32max = u32max;
        d.unbound64();
    }

    // ---- unsigned div and mod ----

    private static void divMod(int op, boolean alu64, RegState dst, RegState src) {
        long aMin = alu64 ? dst.umin : dst.u32min, aMax = alu64 ? dst.umax : dst.u32max;
        long bMin = alu64 ? src.umin : src.u32min, bMax = alu64 ? src.umax : src.u32max;
        long lo = 0, hi = aMax; // x / y <= x, x / 0 = 0; x % y <= x, x % 0 = x
        if (op == Opcodes.DIV && bMin == bMax && bMin != 0) {
            lo = Long.divideUnsigned(aMin, bMin);
            hi = Long.divideUnsigned(aMax, bMin);
        } else if (op == Opcodes.MOD && bMin != 0 && Long.compareUnsigned(bMax - 1, hi) < 0) {
            hi = bMax - 1;
        }
        dst.markUnknown();
        dst.set64(Long.MIN_VALUE, Long.MAX_VALUE, lo, hi);
    }

    /** neg, le/be/bswap and movsx on a scalar in place. */
    static void unary(int opcode, int imm, int off, RegState dst) {
        boolean alu64 = Opcodes.cls(opcode) == Opcodes.ALU64;
        int op = Opcodes.op(opcode);
        if (dst.isConst()) {
            long v = dst.smin;
            if (op == Opcodes.NEG) dst.markConst(alu64 ? AluOps.neg64(v) : AluOps.neg32(v));
            else if (op == Opcodes.END) dst.markConst(!alu64 && Opcodes.source(opcode) == Opcodes.TO_LE ? AluOps.toLe(v, imm) : AluOps.bswap(v, imm));
            else dst.markConst(alu64 ? AluOps.movsx64(v, off) : AluOps.movsx32(v, off));
            return;
        }
        if (op == Opcodes.END) {
            boolean truncateOnly = !alu64 && Opcodes.source(opcode) == Opcodes.TO_LE;
            if (truncateOnly && imm == 64) return;
            if (truncateOnly && Long.compareUnsigned(dst.umax, (1L << imm) - 1) <= 0) return;
            dst.markUnknown();
            if (imm < 64) dst.setVar(0, (1L << imm) - 1);
            return;
        }
        if (op == Opcodes.MOV) { // movsx: the sign-extended range of the width
            long half = 1L << (off - 1);
            dst.markUnknown();
            if (alu64) dst.setVar(-half, half - 1);
            else dst.setVar(0, U32_MAX);
            return;
        }
        unknown(dst, alu64);
    }

    /** The result of a 32-bit {@code mov} from {@code src}: its low half, zero-extended. */
    static void mov32(RegState dst, RegState src) {
        dst.markUnknown();
        dst.s32min = src.s32min;
        dst.s32max = src.s32max;
        dst.u32min = src.u32min;
        dst.u32max = src.u32max;
        dst.tnum = src.tnum;
        dst.zext32();
        dst.sync();
    }

    /** The exact result of an ALU operation on two constants (what both engines compute). */
    static long fold(int op, boolean alu64, int off, long a, long b) {
        boolean signed = off == 1;
        switch (op) {
            case Opcodes.ADD: return alu64 ? AluOps.add64(a, b) : AluOps.add32(a, b);
            case Opcodes.SUB: return alu64 ? AluOps.sub64(a, b) : AluOps.sub32(a, b);
            case Opcodes.MUL: return alu64 ? AluOps.mul64(a, b) : AluOps.mul32(a, b);
            case Opcodes.DIV: return alu64 ? (signed ? AluOps.sdiv64(a, b) : AluOps.div64(a, b)) : (signed ? AluOps.sdiv32(a, b) : AluOps.div32(a, b));
            case Opcodes.MOD: return alu64 ? (signed ? AluOps.smod64(a, b) : AluOps.mod64(a, b)) : (signed ? AluOps.smod32(a, b) : AluOps.mod32(a, b));
            case Opcodes.OR: return alu64 ? AluOps.or64(a, b) : AluOps.or32(a, b);
            case Opcodes.AND: return alu64 ? AluOps.and64(a, b) : AluOps.and32(a, b);
            case Opcodes.XOR: return alu64 ? AluOps.xor64(a, b) : AluOps.xor32(a, b);
            case Opcodes.LSH: return alu64 ? AluOps.lsh64(a, b) : AluOps.lsh32(a, b);
            case Opcodes.RSH: return alu64 ? AluOps.rsh64(a, b) : AluOps.rsh32(a, b);
            case Opcodes.ARSH: return alu64 ? AluOps.arsh64(a, b) : AluOps.arsh32(a, b);
            case Opcodes.MOV: return alu64 ? b : AluOps.mov32(b);
            default: throw new IllegalArgumentException("not a binary ALU operation: 0x" + Integer.toHexString(op));
        }
    }

    private static void unknown(RegState dst, boolean alu64) {
        dst.markUnknown();
        if (!alu64) dst.setVar(0, U32_MAX);
    }
}
