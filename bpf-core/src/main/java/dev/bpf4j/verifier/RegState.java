package dev.bpf4j.verifier;

/**
 * One register's abstract value ({@code struct bpf_reg_state}): a {@link RegType}, and bounds. For a
 * scalar the bounds are its value's; for a pointer they are its variable offset, and {@link #off}
 * is its fixed offset (the kernel's {@code reg->off}). Bounds are kept as the kernel keeps them: signed
 * and unsigned on 64 bits ({@code smin/smax/umin/umax}), the same on the low 32 bits
 * ({@code s32_min/.../u32_max}, what ALU32 and JMP32 work on), and the known bits ({@link Tnum},
 * {@code var_off}); {@link #sync()} tightens each from the others ({@code reg_bounds_sync}).
 */
final class RegState {
    private static final long U32_MAX = 0xffffffffL;

    RegType type = RegType.NOT_INIT;
    long smin, smax, umin, umax;
    /** The low 32 bits' bounds: s32 as a sign-extended long, u32 as a zero-extended one. */
    long s32min, s32max, u32min, u32max;
    /** The known bits ({@code var_off}). */
    Tnum tnum = Tnum.UNKNOWN;
    /** Fixed offset of a pointer. */
    long off;
    /** PTR_TO_STACK: whose frame (0 = main). */
    int frameno;
    /** Pointers that may be null share an id: a null check on one decides all copies. */
    int id;
    /** CONST_PTR_TO_MAP and PTR_TO_MAP_VALUE: the map; PTR_TO_FUNC: the callback's pc; PTR_TO_BTF_ID: its {@link BtfObject} ordinal. */
    long target;
    /** PTR_TO_MAP_VALUE: bytes a program may access from offset 0 (value_size); -1 unknown. */
    long memSize = -1;
    /**
     * PTR_TO_PACKET: bytes from the packet's start (ctx->data) that a comparison with the packet's end
     * proved inside the packet on this path (the kernel's {@code reg->range}, here counted from data).
     */
    long range;
    /**
     * PTR_TO_PACKET with a variable part (id != 0): bytes from {@code data + x}, x being the variable
     * part every pointer of this id shares, that a comparison with the packet's end proved there (the
     * kernel's {@code reg->range}, for the pointers {@code find_good_pkt_pointers} marks by id).
     */
    long varRange;
    /** NOT_INIT since the helper call at this pc moved the packet it pointed into (-1: not so); for the log only. */
    int packetMovedAt = -1;
    /** For a NOT_INIT register: the pc of the bpf_ringbuf_submit/discard that released the reservation it pointed to, else -1. */
    int releasedAt = -1;

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
        r.s32min = s32min;
        r.s32max = s32max;
        r.u32min = u32min;
        r.u32max = u32max;
        r.tnum = tnum;
        r.off = off;
        r.frameno = frameno;
        r.id = id;
        r.target = target;
        r.memSize = memSize;
        r.range = range;
        r.varRange = varRange;
        r.packetMovedAt = packetMovedAt;
        r.releasedAt = releasedAt;
        return r;
    }

    void markUnknown() {
        type = RegType.SCALAR;
        smin = Long.MIN_VALUE;
        smax = Long.MAX_VALUE;
        umin = 0;
        umax = -1L;
        unbound32();
        tnum = Tnum.UNKNOWN;
        off = 0;
        frameno = 0;
        id = 0;
        target = 0;
        memSize = -1;
        range = 0;
        varRange = 0;
        packetMovedAt = -1;
        releasedAt = -1;
    }

    /** __mark_reg_not_init: unreadable, as a register never written; {@code movedAt} says why in the log. */
    void markNotInit(int movedAt) {
        markUnknown();
        type = RegType.NOT_INIT;
        smin = smax = umin = umax = 0;
        s32min = s32max = u32min = u32max = 0;
        tnum = Tnum.constant(0);
        packetMovedAt = movedAt;
    }

    void markConst(long v) {
        markUnknown();
        setVar(v, v);
    }

    /** Sets the 64-bit bounds to the signed range [lo, hi]; the rest is deduced from it. */
    void setVar(long lo, long hi) {
        if (lo == hi) { // exact: every bound is the value (no deduction needed, and constants are made often)
            smin = smax = umin = umax = lo;
            s32min = s32max = (int) lo;
            u32min = u32max = lo & U32_MAX;
            tnum = Tnum.constant(lo);
            return;
        }
        smin = lo;
        smax = hi;
        if (lo >= 0 || hi < 0) {
            umin = lo;
            umax = hi;
        } else {
            umin = 0;
            umax = -1L;
        }
        unbound32();
        tnum = lo == hi ? Tnum.constant(lo) : Tnum.UNKNOWN;
        sync();
    }

    /** Sets the 64-bit bounds alone, everything else unknown, then deduces (for results computed on 64 bits). */
    void set64(long smin, long smax, long umin, long umax) {
        this.smin = smin;
        this.smax = smax;
        this.umin = umin;
        this.umax = umax;
        unbound32();
        tnum = Tnum.UNKNOWN;
        sync();
    }

    void unbound32() {
        s32min = Integer.MIN_VALUE;
        s32max = Integer.MAX_VALUE;
        u32min = 0;
        u32max = U32_MAX;
    }

    void unbound64() {
        smin = Long.MIN_VALUE;
        smax = Long.MAX_VALUE;
        umin = 0;
        umax = -1L;
    }

    boolean isConst() { return smin == smax; }

    boolean isConstZero() { return type == RegType.SCALAR && smin == 0 && smax == 0; }

    /**
     * {@code reg_bounds_sync}: the bounds from the known bits, each kind of bound from the others, the
     * known bits from the bounds, and the bounds again. Contradictory bounds happen only on paths no
     * run takes; they become unknown (sound, and the branch that made them is never explored).
     */
    void sync() {
        updateBounds();
        deduce32();
        deduce64();
        deduceMixed();
        deduce32();
        deduce64();
        boundOffset();
        updateBounds();
        if (smin > smax || Long.compareUnsigned(umin, umax) > 0 || s32min > s32max || u32min > u32max) markUnknown();
    }

    /** __update_reg_bounds: what the known bits allow. */
    private void updateBounds() {
        Tnum t32 = tnum.subreg();
        s32min = Math.max(s32min, (int) (t32.value() | (t32.mask() & 0x80000000L)));
        s32max = Math.min(s32max, (int) (t32.value() | (t32.mask() & 0x7fffffffL)));
        u32min = Math.max(u32min, t32.value());
        u32max = Math.min(u32max, t32.value() | t32.mask());
        smin = Math.max(smin, tnum.value() | (tnum.mask() & Long.MIN_VALUE));
        smax = Math.min(smax, tnum.value() | (tnum.mask() & Long.MAX_VALUE));
        umin = umax(umin, tnum.value());
        umax = umin(umax, tnum.value() | tnum.mask());
    }

    /** __reg32_deduce_bounds: the low halves from the 64-bit bounds, and u32 and s32 from each other. */
    private void deduce32() {
        if ((umin >>> 32) == (umax >>> 32)) { // one upper half: the low halves are a range
            u32min = Math.max(u32min, umin & U32_MAX);
            u32max = Math.min(u32max, umax & U32_MAX);
            if ((int) umin <= (int) umax) {
                s32min = Math.max(s32min, (int) umin);
                s32max = Math.min(s32max, (int) umax);
            }
        }
        if ((smin >> 32) == (smax >> 32)) {
            if ((smin & U32_MAX) <= (smax & U32_MAX)) {
                u32min = Math.max(u32min, smin & U32_MAX);
                u32max = Math.min(u32max, smax & U32_MAX);
            }
            if ((int) smin <= (int) smax) {
                s32min = Math.max(s32min, (int) smin);
                s32max = Math.min(s32max, (int) smax);
            }
        }
        if ((int) u32min <= (int) u32max) { // the u32 range lies in one s32 half
            s32min = Math.max(s32min, (int) u32min);
            s32max = Math.min(s32max, (int) u32max);
        }
        if ((s32min & U32_MAX) <= (s32max & U32_MAX)) { // the s32 range does not cross the sign boundary
            u32min = Math.max(u32min, s32min & U32_MAX);
            u32max = Math.min(u32max, s32max & U32_MAX);
        }
    }

    /** __reg64_deduce_bounds: signed and unsigned from each other, also where the signed range crosses zero. */
    private void deduce64() {
        if (umin <= umax) { // compared signed: the unsigned range lies in one signed half
            smin = Math.max(smin, umin);
            smax = Math.min(smax, umax);
        }
        if (Long.compareUnsigned(smin, smax) <= 0) { // the signed range does not cross the sign boundary
            umin = umax(umin, smin);
            umax = umin(umax, smax);
        } else if (Long.compareUnsigned(umax, smin) < 0) { // only the non-negative part of the signed range
            smin = umin;
            umax = umin(umax, smax);
        } else if (Long.compareUnsigned(smax, umin) < 0) { // only the negative part
            smax = umax;
            umin = umax(umin, smin);
        }
    }

    /** __reg_deduce_mixed_bounds: the 64-bit bounds' low halves from the 32-bit bounds. */
    private void deduceMixed() {
        long newUmin = (umin & ~U32_MAX) | u32min, newUmax = (umax & ~U32_MAX) | u32max;
        umin = umax(umin, newUmin);
        umax = umin(umax, newUmax);
        long newSmin = (smin & ~U32_MAX) | u32min, newSmax = (smax & ~U32_MAX) | u32max;
        smin = Math.max(smin, newSmin);
        smax = Math.min(smax, newSmax);
    }

    /** __reg_bound_offset: the known bits from the unsigned bounds. */
    private void boundOffset() {
        Tnum t64 = tnum.intersect(Tnum.range(umin, umax));
        Tnum t32 = t64.subreg().intersect(Tnum.range(u32min, u32max));
        tnum = t64.clearSubreg().or(t32);
    }

    /** coerce_reg_to_size: the value's low {@code size} bytes, zero-extended (a narrow load of a known value). */
    void coerceToSize(int size) {
        if (size >= 8) return;
        tnum = tnum.cast(size);
        long keep = (1L << (size * 8)) - 1;
        if ((umin & ~keep) == (umax & ~keep)) {
            umin &= keep;
            umax &= keep;
        } else {
            umin = 0;
            umax = keep;
        }
        smin = umin;
        smax = umax;
        if (size < 4) unbound32();
        sync();
    }

    /** coerce_reg_to_size_sx: the value's low {@code size} bytes, sign-extended. */
    void coerceToSizeSx(int size) {
        if (size >= 8) return;
        int shift = 64 - size * 8;
        if (tnum.mask() == 0) {
            markConst(tnum.value() << shift >> shift);
            return;
        }
        long lo = smin << shift >> shift, hi = smax << shift >> shift;
        if ((smin >>> (size * 8)) == (smax >>> (size * 8)) && (Math.min(lo, hi) >= 0) == (Math.max(lo, hi) >= 0)) {
            long min = Math.min(lo, hi), max = Math.max(lo, hi);
            markUnknown();
            setVar(min, max);
            return;
        }
        long half = 1L << (size * 8 - 1);
        markUnknown();
        setVar(-half, half - 1);
    }

    /** zext_32_to_64 after an ALU32 operation: the 64-bit value is the zero-extended low half. */
    void zext32() {
        tnum = tnum.subreg();
        umin = u32min;
        umax = u32max;
        if (s32min >= 0 && s32max >= 0) {
            smin = s32min;
            smax = s32max;
        } else {
            smin = 0;
            smax = U32_MAX;
        }
    }

    static long umax(long x, long y) { return Long.compareUnsigned(x, y) >= 0 ? x : y; }

    static long umin(long x, long y) { return Long.compareUnsigned(x, y) <= 0 ? x : y; }

    /** True when every value this state may hold is one {@code old} may hold (the kernel's range_within and tnum_in). */
    boolean rangeWithin(RegState old) {
        return old.smin <= smin && smax <= old.smax
                && Long.compareUnsigned(old.umin, umin) <= 0 && Long.compareUnsigned(umax, old.umax) <= 0
                && old.s32min <= s32min && s32max <= old.s32max && old.u32min <= u32min && u32max <= old.u32max
                && old.tnum.includes(tnum);
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
                        + ",umax=" + Long.toUnsignedString(umax) + ",smin32=" + s32min + ",smax32=" + s32max + ",umin32=" + u32min
                        + ",umax32=" + u32max + ",var_off=" + tnum + ")";
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
