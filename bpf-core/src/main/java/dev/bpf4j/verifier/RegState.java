package dev.bpf4j.verifier;

/**
 * One register's abstract value ({@code struct bpf_reg_state}): a {@link RegType}, and bounds. For a
 * scalar the bounds are its value's; for a pointer they are its variable offset, and {@link #off}
 * is its fixed offset (the kernel's {@code reg->off}). Bounds are kept signed and unsigned, as the
 * kernel's {@code smin/smax/umin/umax}; {@link #sync()} tightens each from the other.
 */
final class RegState {
    RegType type = RegType.NOT_INIT;
    long smin, smax, umin, umax;
    /** Fixed offset of a pointer. */
    long off;
    /** PTR_TO_STACK: whose frame (0 = main). */
    int frameno;
    /** Pointers that may be null share an id: a null check on one decides all copies. */
    int id;
    /** CONST_PTR_TO_MAP and PTR_TO_MAP_VALUE: the map; PTR_TO_FUNC: the callback's pc. */
    long target;
    /** PTR_TO_MAP_VALUE: bytes a program may access from offset 0 (value_size); -1 unknown. */
    long memSize = -1;
    /**
     * PTR_TO_PACKET: bytes from the packet's start (ctx->data) that a comparison with the packet's end
     * proved inside the packet on this path (the kernel's {@code reg->range}, here counted from data).
     */
    long range;
    /** NOT_INIT since the helper call at this pc moved the packet it pointed into (-1: not so); for the log only. */
    int packetMovedAt = -1;

    static RegState notInit() { return new RegState(); }

    static RegState unknown() {
        RegState r = new RegState();
        r.markUnknown();
        return r;
    }

    static RegState constant(long v) {
        RegState r = new RegState();
        r.markConst(v);
        return r;
    }

    static RegState pointer(RegType type, long off) {
        RegState r = new RegState();
        r.type = type;
        r.setVar(0, 0);
        r.off = off;
        return r;
    }

    RegState copy() {
        RegState r = new RegState();
        r.type = type;
        r.smin = smin;
        r.smax = smax;
        r.umin = umin;
        r.umax = umax;
        r.off = off;
        r.frameno = frameno;
        r.id = id;
        r.target = target;
        r.memSize = memSize;
        r.range = range;
        r.packetMovedAt = packetMovedAt;
        return r;
    }

    void markUnknown() {
        type = RegType.SCALAR;
        smin = Long.MIN_VALUE;
        smax = Long.MAX_VALUE;
        umin = 0;
        umax = -1L;
        off = 0;
        frameno = 0;
        id = 0;
        target = 0;
        memSize = -1;
        range = 0;
        packetMovedAt = -1;
    }

    /** __mark_reg_not_init: unreadable, as a register never written; {@code movedAt} says why in the log. */
    void markNotInit(int movedAt) {
        markUnknown();
        type = RegType.NOT_INIT;
        smin = smax = umin = umax = 0;
        packetMovedAt = movedAt;
    }

    void markConst(long v) {
        markUnknown();
        setVar(v, v);
    }

    /** Sets both signed and unsigned bounds to the same value range (which must not wrap). */
    void setVar(long lo, long hi) {
        smin = lo;
        smax = hi;
        if (lo >= 0 || hi < 0) {
            umin = lo;
            umax = hi;
        } else {
            umin = 0;
            umax = -1L;
        }
    }

    boolean isConst() { return smin == smax; }

    boolean isConstZero() { return type == RegType.SCALAR && smin == 0 && smax == 0; }

    /** Tightens the signed and unsigned bounds from each other ({@code __reg_deduce_bounds}). */
    void sync() {
        if (smin >= 0 || smax < 0) { // the signed range does not cross the sign boundary
            umin = Long.compareUnsigned(umin, smin) > 0 ? umin : smin;
            umax = Long.compareUnsigned(umax, smax) < 0 ? umax : smax;
        }
        if ((umin >= 0) == (umax >= 0)) { // the unsigned range lies in one signed half
            smin = Math.max(smin, umin);
            smax = Math.min(smax, umax);
        }
        if (smin > smax || Long.compareUnsigned(umin, umax) > 0) { // contradictory: only on dead paths
            markUnknown();
        }
    }

    /** True when every value this state may hold is one {@code old} may hold (scalar bounds). */
    boolean rangeWithin(RegState old) {
        return old.smin <= smin && smax <= old.smax
                && Long.compareUnsigned(old.umin, umin) <= 0 && Long.compareUnsigned(umax, old.umax) <= 0;
    }

    /** Same type pointing into the same object (frame, map, function), whatever the offset. */
    boolean sameTarget(RegState o) {
        return type == o.type && frameno == o.frameno && target == o.target && memSize == o.memSize;
    }

    /** Same type and identity (frame, map, function, fixed offset): what pruning and joins compare first. */
    boolean sameKind(RegState o) {
        return type == o.type && off == o.off && frameno == o.frameno && target == o.target && memSize == o.memSize;
    }

    /** Two pointers whose difference is the same in every engine: one frame's stack, one packet, the ctx. */
    boolean sameRegion(RegState o) {
        if (type != o.type) return false;
        switch (type) {
            case PTR_TO_STACK: return frameno == o.frameno;
            case PTR_TO_PACKET: case PTR_TO_PACKET_META: case PTR_TO_CTX: return true;
            default: return false;
        }
    }

    /** Pointers a program may compare: those of {@link #sameRegion}, and packet against packet end. */
    boolean comparableWith(RegState o) {
        return (isPacketPointer(type) && isPacketPointer(o.type)) || sameRegion(o);
    }

    /** reg_is_pkt_pointer_any: packet, packet end or packet metadata. */
    static boolean isPacketPointer(RegType t) {
        return t == RegType.PTR_TO_PACKET || t == RegType.PTR_TO_PACKET_END || t == RegType.PTR_TO_PACKET_META;
    }

    /** How the kernel's log prints the register ({@code print_verifier_state}). */
    @Override
    public String toString() {
        switch (type) {
            case NOT_INIT: return "?";
            case SCALAR:
                if (isConst()) return Long.toString(smin);
                return "scalar(smin=" + smin + ",smax=" + smax + ",umin=" + Long.toUnsignedString(umin)
                        + ",umax=" + Long.toUnsignedString(umax) + ")";
            default:
                StringBuilder sb = new StringBuilder(type.logName).append("(");
                if (type == RegType.PTR_TO_STACK) sb.append("frame=").append(frameno).append(",");
                if (id != 0) sb.append("id=").append(id).append(",");
                sb.append("off=").append(off);
                if (!isConst() || smin != 0) sb.append(",var=[").append(smin).append(",").append(smax).append("]");
                return sb.append(")").toString();
        }
    }
}
