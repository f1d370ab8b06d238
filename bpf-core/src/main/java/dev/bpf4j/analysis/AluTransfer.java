package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * ALU/ALU64 over {@link AbstractState}: interval arithmetic on scalars (any possible overflow gives
 * "unknown"), frame pointer plus or minus a scalar stays a frame pointer, everything else on a
 * frame pointer is unknown. 32-bit operations are computed exactly only when both operands lie in
 * {@code [0, 2^32)} and the result provably does too; otherwise the result is {@code [0, 2^32)}.
 */
final class AluTransfer {
    private AluTransfer() {}

    private static final long U32 = 0xffffffffL;

    static void apply(AbstractState s, Insn i) { apply(s, i, -1); }

    /** As above; {@code pc} names the variable a packet pointer plus a bounded scalar creates ({@link RegionTransfer}). */
    static void apply(AbstractState s, Insn i, int pc) {
        boolean w = i.cls() == Opcodes.ALU64;
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        int op = Opcodes.op(i.opcode());
        int d = i.dst();
        if (d == 10) { s.setTop(d); return; } // never valid; the validator rejects it
        if (op == Opcodes.END) { endian(s, i, w, x); return; }
        if (w && RegionTransfer.alu64(s, i, pc)) return;
        if (op == Opcodes.MOV && i.off() == 0) {
            if (!x) {
                long v = w ? i.imm() : i.imm() & U32;
                s.setScalar(d, v, v);
            } else if (w) {
                s.copyValue(d, s, i.src());
            } else {
                scalar32(s, d, s.isPointer(i.src()) ? Long.MIN_VALUE : s.lo(i.src()), s.isPointer(i.src()) ? Long.MAX_VALUE : s.hi(i.src()));
            }
            return;
        }
        if (op == Opcodes.MOV) { // movsx
            int bits = i.off();
            long min = -(1L << (bits - 1)), max = (1L << (bits - 1)) - 1;
            boolean fits = !s.isPointer(i.src()) && s.lo(i.src()) >= min && s.hi(i.src()) <= max;
            long l = fits ? s.lo(i.src()) : min, h = fits ? s.hi(i.src()) : max;
            if (w) s.setScalar(d, l, h);
            else scalar32(s, d, l, h);
            return;
        }
        // The second operand.
        boolean srcFrame = x && s.isFrame(i.src());
        boolean srcPointer = x && s.isPointer(i.src());
        long bl = x ? s.lo(i.src()) : w ? i.imm() : i.imm() & U32;
        long bh = x ? s.hi(i.src()) : w ? i.imm() : i.imm() & U32;
        boolean signed = i.off() == 1 && (op == Opcodes.DIV || op == Opcodes.MOD);
        if (w) {
            if (s.isFrame(d) || srcFrame) { pointerArithmetic(s, d, op, srcFrame, bl, bh); return; }
            long[] r = signed ? null : scalar(op, s.lo(d), s.hi(d), bl, bh);
            if (r == null) s.setTop(d);
            else s.setScalar(d, r[0], r[1]);
            return;
        }
        // ALU32: exact only on operands in [0, 2^32).
        boolean inRange = !s.isPointer(d) && !srcPointer && s.lo(d) >= 0 && s.hi(d) <= U32 && bl >= 0 && bh <= U32;
        boolean shift = op == Opcodes.LSH || op == Opcodes.RSH || op == Opcodes.ARSH;
        if (op == Opcodes.ARSH) inRange &= s.hi(d) <= Integer.MAX_VALUE; // then it shifts like RSH
        if (shift) {
            inRange &= bl == bh; // a constant count, masked to 5 bits as the engines do
            bl &= 31;
            bh = bl;
        }
        long[] r = inRange && !signed ? scalar(op == Opcodes.ARSH ? Opcodes.RSH : op, s.lo(d), s.hi(d), bl, bh) : null;
        if (r != null && r[0] >= 0 && r[1] <= U32) s.setScalar(d, r[0], r[1]);
        else s.setScalar(d, 0, U32);
    }

    private static void scalar32(AbstractState s, int d, long l, long h) {
        if (l >= 0 && h <= U32) s.setScalar(d, l, h);
        else s.setScalar(d, 0, U32);
    }

    /** Frame pointer +/- scalar keeps the frame; anything else involving a frame pointer is unknown. */
    private static void pointerArithmetic(AbstractState s, int d, int op, boolean srcFrame, long bl, long bh) {
        if (s.isFrame(d) && !srcFrame) {
            if (op == Opcodes.ADD && bl >= -AbstractState.MAX_FRAME_OFFSET && bh <= AbstractState.MAX_FRAME_OFFSET) {
                s.setFrame(d, s.lo(d) + bl, s.hi(d) + bh);
                return;
            }
            if (op == Opcodes.SUB && bl >= -AbstractState.MAX_FRAME_OFFSET && bh <= AbstractState.MAX_FRAME_OFFSET) {
                s.setFrame(d, s.lo(d) - bh, s.hi(d) - bl);
                return;
            }
        }
        if (!s.isFrame(d) && srcFrame && op == Opcodes.ADD && s.lo(d) >= -AbstractState.MAX_FRAME_OFFSET
                && s.hi(d) <= AbstractState.MAX_FRAME_OFFSET) {
            s.setFrame(d, s.lo(d) + bl, s.hi(d) + bh);
            return;
        }
        s.setTop(d);
    }

    /** {@code [al, ah] op [bl, bh]} on signed 64-bit scalars, or null when unknown. */
    static long[] scalar(int op, long al, long ah, long bl, long bh) {
        try {
            switch (op) {
                case Opcodes.ADD: return new long[]{Math.addExact(al, bl), Math.addExact(ah, bh)};
                case Opcodes.SUB: return new long[]{Math.subtractExact(al, bh), Math.subtractExact(ah, bl)};
                case Opcodes.MUL: {
                    long a = Math.multiplyExact(al, bl), b = Math.multiplyExact(al, bh);
                    long c = Math.multiplyExact(ah, bl), e = Math.multiplyExact(ah, bh);
                    return new long[]{Math.min(Math.min(a, b), Math.min(c, e)), Math.max(Math.max(a, b), Math.max(c, e))};
                }
                case Opcodes.NEG: return new long[]{Math.negateExact(ah), Math.negateExact(al)};
                case Opcodes.AND:
                    if (al >= 0 && bl >= 0) return new long[]{0, Math.min(ah, bh)};
                    if (bl >= 0) return new long[]{0, bh};
                    if (al >= 0) return new long[]{0, ah};
                    return null;
                case Opcodes.OR:
                case Opcodes.XOR:
                    if (al < 0 || bl < 0) return null;
                    return new long[]{0, allOnesCovering(Math.max(ah, bh))};
                case Opcodes.LSH: {
                    if (bl != bh || bl < 0 || bl > 63 || al < 0) return null;
                    int k = (int) bl;
                    if (k > 0 && ah > (Long.MAX_VALUE >> k)) return null;
                    return new long[]{al << k, ah << k};
                }
                case Opcodes.RSH: {
                    if (bl != bh || bl < 0 || bl > 63) return null;
                    int k = (int) bl;
                    if (al >= 0) return new long[]{al >> k, ah >> k};
                    return k == 0 ? new long[]{al, ah} : new long[]{0, -1L >>> k};
                }
                case Opcodes.ARSH: {
                    if (bl != bh || bl < 0 || bl > 63) return null;
                    return new long[]{al >> (int) bl, ah >> (int) bl};
                }
                case Opcodes.DIV:
                    if (al < 0 || bl <= 0) return null; // unsigned: a negative divisor is huge; 0 gives 0
                    return new long[]{al / bh, ah / bl};
                case Opcodes.MOD:
                    if (al < 0 || bl <= 0) return null;
                    return new long[]{0, Math.min(ah, bh - 1)};
                default:
                    return null;
            }
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    private static long allOnesCovering(long v) { return v == 0 ? 0 : -1L >>> Long.numberOfLeadingZeros(v); }

    private static void endian(AbstractState s, Insn i, boolean w, boolean x) {
        int d = i.dst();
        int bits = i.imm();
        if (!w && !x && bits == 16) { s.setScalar(d, 0, 0xffff); return; }
        if (!w && !x && bits == 32) { s.setScalar(d, 0, U32); return; }
        if (bits == 16) { s.setScalar(d, 0, 0xffff); return; }
        if (bits == 32) { s.setScalar(d, 0, U32); return; }
        s.setTop(d);
    }
}
