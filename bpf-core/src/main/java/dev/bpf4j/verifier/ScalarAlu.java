package dev.bpf4j.verifier;

import dev.bpf4j.isa.AluOps;
import dev.bpf4j.isa.Opcodes;

/**
 * Arithmetic on scalar bounds ({@code adjust_scalar_min_max_vals}): constants fold exactly through
 * {@link AluOps}, the RFC 9669 semantics both engines run; other ranges are followed where it is
 * cheap and sound (add, sub, mul, and, or, shifts, div, mod) and become unknown otherwise. 32-bit
 * operations work on the operands' low halves and give zero-extended results.
 */
final class ScalarAlu {
    private ScalarAlu() {}

    private static final long U32_MAX = 0xffffffffL;

    /** {@code dst = dst op src} for {@code op} (an ALU operation code) on scalars; {@code off} 1 = signed div/mod. */
    static void apply(int op, boolean alu64, int off, RegState dst, RegState src) {
        if (dst.isConst() && src.isConst()) {
            dst.markConst(fold(op, alu64, off, dst.smin, src.smin));
            return;
        }
        RegState a = alu64 ? dst : low32(dst), b = alu64 ? src : low32(src);
        long lo, hi; // unsigned result range
        switch (op) {
            case Opcodes.ADD:
                if (alu64 && signedRange(dst, a.smin, b.smin, a.smax, b.smax, true)) return;
                if (addOverflows(a.umax, b.umax)) { unknown(dst, alu64); return; }
                lo = a.umin + b.umin;
                hi = a.umax + b.umax;
                break;
            case Opcodes.SUB:
                if (alu64 && signedRange(dst, a.smin, b.smax, a.smax, b.smin, false)) return;
                if (Long.compareUnsigned(a.umin, b.umax) < 0) { unknown(dst, alu64); return; }
                lo = a.umin - b.umax;
                hi = a.umax - b.umin;
                break;
            case Opcodes.MUL:
                if (Long.compareUnsigned(a.umax, U32_MAX) > 0 || Long.compareUnsigned(b.umax, U32_MAX) > 0) {
                    unknown(dst, alu64);
                    return;
                }
                lo = a.umin * b.umin;
                hi = a.umax * b.umax;
                if (hi < 0) { unknown(dst, alu64); return; }
                break;
            case Opcodes.DIV:
                if (off != 0) { unknown(dst, alu64); return; }
                lo = 0;
                hi = a.umax; // x / y <= x, and x / 0 = 0
                if (b.isConst() && b.umin != 0) {
                    lo = Long.divideUnsigned(a.umin, b.umin);
                    hi = Long.divideUnsigned(a.umax, b.umin);
                }
                break;
            case Opcodes.MOD:
                if (off != 0) { unknown(dst, alu64); return; }
                lo = 0;
                hi = a.umax; // x % 0 = x, x % y <= x
                if (b.umin != 0 && Long.compareUnsigned(b.umax - 1, hi) < 0) hi = b.umax - 1;
                break;
            case Opcodes.AND:
                lo = 0;
                hi = Long.compareUnsigned(a.umax, b.umax) < 0 ? a.umax : b.umax;
                break;
            case Opcodes.OR: case Opcodes.XOR: {
                long top = Long.compareUnsigned(a.umax, b.umax) > 0 ? a.umax : b.umax;
                hi = top == 0 ? 0 : -1L >>> Long.numberOfLeadingZeros(top); // all bits up to the highest set
                lo = op == Opcodes.OR ? (Long.compareUnsigned(a.umin, b.umin) > 0 ? a.umin : b.umin) : 0;
                break;
            }
            case Opcodes.LSH: case Opcodes.RSH: case Opcodes.ARSH: {
                if (!b.isConst()) { unknown(dst, alu64); return; }
                int k = (int) (b.umin & (alu64 ? 63 : 31));
                if (op == Opcodes.LSH) {
                    if (k != 0 && Long.compareUnsigned(a.umax, -1L >>> k) > 0) { unknown(dst, alu64); return; }
                    lo = a.umin << k;
                    hi = a.umax << k;
                } else if (op == Opcodes.RSH) {
                    lo = a.umin >>> k;
                    hi = a.umax >>> k;
                } else {
                    if (!alu64) { unknown(dst, false); return; }
                    dst.smin = a.smin >> k;
                    dst.smax = a.smax >> k;
                    dst.umin = 0;
                    dst.umax = -1L;
                    dst.sync();
                    return;
                }
                break;
            }
            default: // neg and everything signed on 32 bits
                unknown(dst, alu64);
                return;
        }
        if (!alu64 && Long.compareUnsigned(hi, U32_MAX) > 0) { unknown(dst, false); return; }
        dst.umin = lo;
        dst.umax = hi;
        dst.smin = Long.MIN_VALUE;
        dst.smax = Long.MAX_VALUE;
        dst.sync();
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
        RegState low = low32(src);
        dst.markUnknown();
        dst.smin = low.smin;
        dst.smax = low.smax;
        dst.umin = low.umin;
        dst.umax = low.umax;
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

    /** The register's low 32 bits as a range: exact when its unsigned range fits, else [0, 2^32). */
    private static RegState low32(RegState r) {
        RegState out = RegState.unknown();
        if (r.isConst()) out.markConst(r.smin & U32_MAX);
        else if (Long.compareUnsigned(r.umax, U32_MAX) <= 0) out.setVar(r.umin, r.umax);
        else out.setVar(0, U32_MAX);
        return out;
    }

    private static void unknown(RegState dst, boolean alu64) {
        dst.markUnknown();
        if (!alu64) dst.setVar(0, U32_MAX);
    }

    private static boolean addOverflows(long x, long y) { return Long.compareUnsigned(x + y, x) < 0; }

    /** Sets dst's signed range to [lo1 op lo2, hi1 op hi2] when neither end overflows; true when it did. */
    private static boolean signedRange(RegState dst, long lo1, long lo2, long hi1, long hi2, boolean add) {
        try {
            long lo = add ? Math.addExact(lo1, lo2) : Math.subtractExact(lo1, lo2);
            long hi = add ? Math.addExact(hi1, hi2) : Math.subtractExact(hi1, hi2);
            dst.markUnknown();
            dst.smin = lo;
            dst.smax = hi;
            dst.sync();
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }
}
