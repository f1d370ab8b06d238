package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * ALU64 and conditional jumps on data-buffer values ({@link RegionProof}), as the kernel verifier
 * treats {@code PTR_TO_PACKET} and {@code PTR_TO_PACKET_END}: packet pointer plus or minus a
 * constant moves its offset; plus a bounded scalar gives a pointer with a new variable (id = pc + 1,
 * bounds from the scalar) whose range starts at what the old pointer's range still covers;
 * {@code data + len} is the end. An unsigned 64-bit compare (or equality) of a packet pointer with
 * the end teaches, on the edge where the pointer is at most the end, that the bytes below it are in
 * the buffer; the end minus {@code data + 0} is len. A ctx pointer ({@link RegionProof}'s ctx form)
 * moves by constants. Anything else involving these values is unknown or unrefined.
 */
final class RegionTransfer {
    private RegionTransfer() {}

    /** Handles ALU64 {@code i} when an operand is a packet pointer or the end; false when not concerned. */
    static boolean alu64(AbstractState s, Insn i, int pc) {
        if (s.facts() == null) return false;
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        int op = Opcodes.op(i.opcode());
        int d = i.dst(), src = i.src();
        byte dk = s.kind(d), sk = x ? s.kind(src) : AbstractState.SCALAR;
        boolean concerned = dk == AbstractState.PACKET || dk == AbstractState.END || sk == AbstractState.PACKET || sk == AbstractState.END
                || dk == AbstractState.CTX || sk == AbstractState.CTX;
        if (!concerned || op == Opcodes.MOV) return false; // MOV copies any value (AluTransfer)
        if (op == Opcodes.ADD && x) {
            if (dk == AbstractState.PACKET && sk == AbstractState.LEN) { dataPlusLen(s, d, d); return true; }
            if (dk == AbstractState.LEN && sk == AbstractState.PACKET) { dataPlusLen(s, d, src); return true; }
        }
        if (op == Opcodes.SUB && x && dk == AbstractState.END && sk == AbstractState.PACKET) { // data_end - data
            if (s.id(src) == 0 && s.lo(src) == 0 && s.hi(src) == 0) s.setLen(d);
            else s.setTop(d);
            return true;
        }
        boolean dScalar = dk == AbstractState.SCALAR || dk == AbstractState.LEN;
        boolean sScalar = !x || sk == AbstractState.SCALAR || sk == AbstractState.LEN;
        long bl = x ? s.lo(src) : i.imm(), bh = x ? s.hi(src) : i.imm();
        if (dk == AbstractState.CTX || sk == AbstractState.CTX) { ctx(s, i, dk, sScalar, bl, bh); return true; }
        if (dk == AbstractState.PACKET && sScalar && (op == Opcodes.ADD || op == Opcodes.SUB)) {
            if (op == Opcodes.SUB) {
                if (bl == Long.MIN_VALUE) { s.setTop(d); return true; }
                long t = bl;
                bl = -bh;
                bh = -t;
            }
            add(s, d, d, bl, bh, pc);
            return true;
        }
        if (dScalar && sk == AbstractState.PACKET && op == Opcodes.ADD) {
            add(s, d, src, s.lo(d), s.hi(d), pc);
            return true;
        }
        s.setTop(d); // pointer - pointer, pointer * x, anything on the end: unknown
        return true;
    }

    /** ctx plus or minus a constant stays the ctx (fields are found by exact offset); anything else on it is unknown. */
    private static void ctx(AbstractState s, Insn i, byte dk, boolean sScalar, long bl, long bh) {
        int op = Opcodes.op(i.opcode()), d = i.dst();
        boolean constant = bl == bh && bl > -AbstractState.MAX_FRAME_OFFSET && bl < AbstractState.MAX_FRAME_OFFSET;
        if (dk == AbstractState.CTX && sScalar && constant && op == Opcodes.ADD) s.setCtx(d, s.lo(d) + bl, s.hi(d) + bl);
        else if (dk == AbstractState.CTX && sScalar && constant && op == Opcodes.SUB) s.setCtx(d, s.lo(d) - bl, s.hi(d) - bl);
        else if (dk == AbstractState.SCALAR && s.lo(d) == s.hi(d) && op == Opcodes.ADD && Opcodes.source(i.opcode()) == Opcodes.X
                && s.lo(d) > -AbstractState.MAX_FRAME_OFFSET && s.lo(d) < AbstractState.MAX_FRAME_OFFSET) s.setCtx(d, s.lo(i.src()) + s.lo(d), s.hi(i.src()) + s.lo(d));
        else s.setTop(d);
    }

    /** {@code data + 0} plus len is the end; any other pointer plus len is unknown. */
    private static void dataPlusLen(AbstractState s, int d, int ptr) {
        if (s.id(ptr) == 0 && s.lo(ptr) == 0 && s.hi(ptr) == 0) s.setEnd(d);
        else s.setTop(d);
    }

    /** d = the packet pointer in {@code ptr} + a scalar in {@code [bl, bh]}. */
    private static void add(AbstractState s, int d, int ptr, long bl, long bh, int pc) {
        long max = AbstractState.MAX_FRAME_OFFSET;
        if (bl < -max || bh > max) { s.setTop(d); return; }
        int id = s.id(ptr);
        long kl = s.lo(ptr), kh = s.hi(ptr);
        if (bl == bh) { s.setPacket(d, id, kl + bl, kh + bh); return; }
        // A variable offset: a new variable V' = V + K + scalar, the pointer is data + V' + 0.
        RegionFacts f = s.facts();
        long vlo = f.vlo(id) + kl + bl, vhi = f.vhi(id) + kh + bh;
        long range = f.range(id) - kh - bh; // V + range <= len, V' <= V + kh + bh
        if (vlo < -max || vhi > max) { s.setTop(d); return; }
        int fresh = pc + 1;
        // Straight-line code would otherwise pile up variables no value holds, and each define copies them all.
        if (f.variables() >= AbstractState.N) s.dropUnusedIds();
        s.forgetId(fresh);           // an older value from this pc (a loop) is a different variable
        f.define(fresh, vlo, vhi, range);
        s.touched();
        s.setPacket(d, fresh, 0, 0);
    }

    /** Sentinel: the jump does not involve data-buffer values in a way handled here. */
    static final AbstractState NOT_CONCERNED = AbstractState.entry();

    /**
     * The state on one edge of a conditional jump whose operands include a packet pointer or the
     * end; {@link #NOT_CONCERNED} for other jumps; null when the edge is infeasible.
     */
    static AbstractState edge(AbstractState s, Insn i, boolean taken) {
        if (s.facts() == null) return NOT_CONCERNED;
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        int d = i.dst(), src = i.src();
        byte dk = s.kind(d), sk = x ? s.kind(src) : AbstractState.SCALAR;
        boolean dPtr = dk == AbstractState.PACKET || dk == AbstractState.END, sPtr = sk == AbstractState.PACKET || sk == AbstractState.END;
        if (!dPtr && !sPtr) return NOT_CONCERNED;
        int op = Opcodes.op(i.opcode());
        AbstractState out = s.copy();
        if (i.cls() != Opcodes.JMP || !x || op == Opcodes.JSET) return out; // 32-bit or signed views of addresses: nothing
        int rel = taken ? op : BranchRefinement.negate(op);
        int ptr;
        if (dk == AbstractState.PACKET && sk == AbstractState.END) {
            ptr = d;
        } else if (dk == AbstractState.END && sk == AbstractState.PACKET) {
            ptr = src;
            rel = mirror(rel);
        } else {
            return out;
        }
        long k = out.lo(ptr);
        boolean ok = true;
        switch (rel) {
            case Opcodes.JLE: case Opcodes.JEQ: ok = out.facts().noteInside(out.id(ptr), k); break;
            case Opcodes.JLT: ok = out.facts().noteInside(out.id(ptr), k + 1); break;
            default: break; // above the end, or signed: nothing learnt
        }
        out.touched();
        return ok ? out : null;
    }

    /** {@code a REL b} as {@code b REL' a}. */
    private static int mirror(int rel) {
        switch (rel) {
            case Opcodes.JGT: return Opcodes.JLT;
            case Opcodes.JLT: return Opcodes.JGT;
            case Opcodes.JGE: return Opcodes.JLE;
            case Opcodes.JLE: return Opcodes.JGE;
            case Opcodes.JSGT: return Opcodes.JSLT;
            case Opcodes.JSLT: return Opcodes.JSGT;
            case Opcodes.JSGE: return Opcodes.JSLE;
            case Opcodes.JSLE: return Opcodes.JSGE;
            default: return rel; // JEQ, JNE
        }
    }
}
