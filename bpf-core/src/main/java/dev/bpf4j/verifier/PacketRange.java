package dev.bpf4j.verifier;

import dev.bpf4j.isa.Opcodes;

/**
 * Packet range tracking ({@code find_good_pkt_pointers}): on the side of a comparison between a
 * packet pointer at a constant offset N and the packet's end where {@code data + N <= data_end}
 * holds, every packet pointer of the path learns that the first N bytes of the packet are there
 * ({@link RegState#range}, counted from data: bpf4j's packet pointers all derive from the one
 * {@code ctx->data}). An access inside that range is proven ({@link InsnAux#proven}); bpf4j still
 * checks it at run time, so the range only ever adds a proof, never lets an access through.
 */
final class PacketRange {
    private PacketRange() {}

    /** After {@code if a OP b} (64-bit) was {@code taken} or not: widens the packet pointers' range where it proves one. */
    static void refine(VerifierState st, int op, RegState a, RegState b, boolean taken) {
        long n;
        boolean pktLeft = isConstPacket(a) && b.type == RegType.PTR_TO_PACKET_END;
        boolean pktRight = isConstPacket(b) && a.type == RegType.PTR_TO_PACKET_END;
        if (pktLeft) n = a.off + a.smin;
        else if (pktRight) n = b.off + b.smin;
        else return;
        if (n <= 0 || n > MAX_PACKET_OFF || !provesInside(op, pktLeft, taken)) return;
        long proven = strictlyInside(op, pktLeft) ? n + 1 : n; // pkt < end: one byte more (range_right_open)
        st.forEachReg(r -> { if (r.type == RegType.PTR_TO_PACKET) r.range = Math.max(r.range, proven); });
    }

    /** The kernel's MAX_PACKET_OFF: a comparison further out proves nothing. */
    private static final long MAX_PACKET_OFF = 0xffff;

    /** True when the side {@link #provesInside} proves is {@code pkt < end} rather than {@code pkt <= end}. */
    private static boolean strictlyInside(int op, boolean pktLeft) {
        switch (op) {
            case Opcodes.JGE: case Opcodes.JLT: return pktLeft;   // !(pkt >= end), pkt < end
            case Opcodes.JGT: case Opcodes.JLE: return !pktLeft;  // end > pkt, !(end <= pkt)
            default: return false;
        }
    }

    private static boolean isConstPacket(RegState r) { return r.type == RegType.PTR_TO_PACKET && r.isConst(); }

    /**
     * True when the branch side implies {@code pkt <= pkt_end}: {@code pkt > end} or {@code pkt >= end}
     * not taken, {@code pkt <= end} or {@code pkt < end} taken, and the same with the operands swapped.
     */
    private static boolean provesInside(int op, boolean pktLeft, boolean taken) {
        switch (op) {
            case Opcodes.JGT: case Opcodes.JGE: return pktLeft ? !taken : taken;   // pkt > end | end > pkt
            case Opcodes.JLT: case Opcodes.JLE: return pktLeft ? taken : !taken;   // pkt < end | end < pkt
            default: return false;
        }
    }
}
