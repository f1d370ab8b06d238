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

    /**
     * After {@code if a OP b} (64-bit) was {@code taken} or not: widens the packet pointers' range where it
     * proves one. A pointer with a variable part proves its fixed offset past that part for every pointer
     * of its id ({@link RegState#varRange}), and its lowest total offset from data for all.
     */
    static void refine(VerifierState st, int op, RegState a, RegState b, boolean taken) {
        boolean pktLeft = isPacket(a) && b.type == RegType.PTR_TO_PACKET_END;
        boolean pktRight = isPacket(b) && a.type == RegType.PTR_TO_PACKET_END;
        if (!pktLeft && !pktRight) return;
        RegState p = pktLeft ? a : b;
        if (!provesInside(op, pktLeft, taken)) return;
        long n = p.off + p.smin;
        if (n > MAX_PACKET_OFF) return;
        long extra = strictlyInside(op, pktLeft) ? 1 : 0; // pkt < end: one byte more (range_right_open)
        if (n > 0) st.forEachReg(r -> { if (r.type == RegType.PTR_TO_PACKET) r.range = Math.max(r.range, n + extra); });
        if (p.id != 0 && p.off > 0) {
            long v = p.off + extra;
            st.forEachReg(r -> { if (r.type == RegType.PTR_TO_PACKET && r.id == p.id) r.varRange = Math.max(r.varRange, v); });
        }
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

    private static boolean isPacket(RegState r) {
        return r.type == RegType.PTR_TO_PACKET && r.smin >= 0 && r.smax < MemoryAccess.MAX_VAR_OFF;
    }

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
