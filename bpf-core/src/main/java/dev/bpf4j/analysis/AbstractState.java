package dev.bpf4j.analysis;

import dev.bpf4j.runtime.Limits;

import java.util.Arrays;
import java.util.Objects;

/**
 * One abstract machine state of {@link StackProof}: for each register r0-r10 and each 8-byte
 * stack slot of the current frame, a value of one kind: a <b>scalar</b> whose signed 64-bit value
 * lies in {@code [lo, hi]}; a <b>frame pointer</b> {@code r10 + [lo, hi]}; and, only in a region
 * analysis ({@link RegionProof}), a <b>packet pointer</b> {@code data + V(id) + [lo, hi]}, the
 * buffer's <b>end</b> {@code data + len}, or <b>len</b> itself (its bounds live in
 * {@link RegionFacts}). "Anything" (uninitialised, clobbered, unknown memory) is the scalar
 * {@code [MIN, MAX]}: it proves nothing, so a value only counts as a pointer when every path made
 * it one. Slots are indexes {@code REGS..REGS+63}; a bit mask marks the few that hold anything
 * better than "anything", so copies, hashes and comparisons stay cheap.
 */
final class AbstractState {
    static final int REGS = 11;
    static final int SLOTS = Limits.STACK_SIZE / 8; // 64: one bit each in `known`
    static final int N = REGS + SLOTS;
    /** Pointer offsets past this are treated as unknown (keeps offset arithmetic far from overflow). */
    static final long MAX_FRAME_OFFSET = 1L << 32;

    static final byte SCALAR = 0, FRAME = 1, PACKET = 2, END = 3, LEN = 4, CTX = 5;

    /** lo, hi of index i at [2i], [2i + 1]; kind and packet id at [i]: registers always, slots while some slot is known. */
    private final long[] regs;
    private final byte[] regKind;
    private final int[] regId;
    private long[] slots;
    private byte[] slotKind;
    private int[] slotId;
    /** Bit k: slot k holds something better than "anything". */
    private long known;
    /** Facts about the data buffer; null outside a region analysis. */
    private RegionFacts facts;
    private int hash;

    private AbstractState(long[] regs, byte[] regKind, int[] regId, long[] slots, byte[] slotKind, int[] slotId,
                          long known, RegionFacts facts) {
        this.regs = regs;
        this.regKind = regKind;
        this.regId = regId;
        this.slots = slots;
        this.slotKind = slotKind;
        this.slotId = slotId;
        this.known = known;
        this.facts = facts;
    }

    /** A function's entry: r10 = frame + 0, every other register and slot unknown. */
    static AbstractState entry() {
        AbstractState s = new AbstractState(new long[2 * REGS], new byte[REGS], new int[REGS], null, null, null, 0, null);
        for (int i = 0; i < REGS; i++) s.setTop(i);
        s.setFrame(10, 0, 0);
        return s;
    }

    /** The main function's entry under the data-buffer convention: also r1 = data + 0, r2 = len. */
    static AbstractState regionEntry() {
        AbstractState s = entry();
        s.facts = new RegionFacts();
        s.setPacket(1, 0, 0, 0);
        s.setLen(2);
        return s;
    }

    /**
     * The main function's entry of a kernel-style program whose ctx holds {@code __u32 data} at
     * {@code dataOff} and {@code __u32 data_end} at {@code endOff}: r1 = ctx + 0; loads of those
     * fields give data + 0 and the end ({@link MemoryTransfer}) until anything may change them.
     */
    static AbstractState ctxEntry(int dataOff, int endOff, int slots) {
        AbstractState s = entry();
        s.facts = RegionFacts.ctx(dataOff, endOff, slots);
        s.setCtx(1, 0, 0);
        return s;
    }

    AbstractState copy() {
        boolean k = known != 0;
        return new AbstractState(regs.clone(), regKind.clone(), regId.clone(), k ? slots.clone() : null,
                k ? slotKind.clone() : null, k ? slotId.clone() : null, known, facts == null ? null : facts.copy());
    }

    RegionFacts facts() { return facts; }

    byte kind(int i) { return i < REGS ? regKind[i] : isKnown(i) ? slotKind[i - REGS] : SCALAR; }

    int id(int i) { return i < REGS ? regId[i] : isKnown(i) ? slotId[i - REGS] : 0; }

    boolean isFrame(int i) { return kind(i) == FRAME; }

    /** A frame, packet, end or ctx pointer: not a number arithmetic may treat as one. */
    boolean isPointer(int i) { byte k = kind(i); return k == FRAME || k == PACKET || k == END || k == CTX; }

    long lo(int i) {
        if (i < REGS) return regKind[i] == LEN ? facts.lenLo : regs[2 * i];
        if (!isKnown(i)) return Long.MIN_VALUE;
        return slotKind[i - REGS] == LEN ? facts.lenLo : slots[2 * (i - REGS)];
    }

    long hi(int i) {
        if (i < REGS) return regKind[i] == LEN ? facts.lenHi : regs[2 * i + 1];
        if (!isKnown(i)) return Long.MAX_VALUE;
        return slotKind[i - REGS] == LEN ? facts.lenHi : slots[2 * (i - REGS) + 1];
    }

    private boolean isKnown(int i) { return (known & (1L << (i - REGS))) != 0; }

    boolean isTop(int i) { return kind(i) == SCALAR && lo(i) == Long.MIN_VALUE && hi(i) == Long.MAX_VALUE; }

    void setTop(int i) { setScalar(i, Long.MIN_VALUE, Long.MAX_VALUE); }

    void setScalar(int i, long l, long h) { set(i, SCALAR, 0, l, h); }

    /** {@code r10 + [l, h]}; unknown when the offsets are implausibly far from the frame. */
    void setFrame(int i, long l, long h) {
        if (l < -MAX_FRAME_OFFSET || h > MAX_FRAME_OFFSET) setTop(i);
        else set(i, FRAME, 0, l, h);
    }

    /** {@code data + V(id) + [l, h]}; unknown when the offsets are implausibly large. */
    void setPacket(int i, int id, long l, long h) {
        if (l < -MAX_FRAME_OFFSET || h > MAX_FRAME_OFFSET || !facts.has(id)) setTop(i);
        else set(i, PACKET, id, l, h);
    }

    void setEnd(int i) { set(i, END, 0, 0, 0); }

    /** {@code ctx + [l, h]}: the run's r1 at entry, moved by constants. */
    void setCtx(int i, long l, long h) {
        if (l < -MAX_FRAME_OFFSET || h > MAX_FRAME_OFFSET) setTop(i);
        else set(i, CTX, 0, l, h);
    }

    /** A store, atomic or call may have written the ctx's data/data_end: later loads of them are unknown. */
    void ctxMayChange() {
        if (facts == null || !facts.hasCtx() || facts.ctxMoved) return;
        facts = facts.copy();
        facts.ctxMoved = true;
        hash = 0;
    }

    void setLen(int i) { set(i, LEN, 0, 0, 0); }

    void copyValue(int to, AbstractState from, int fromIndex) {
        set(to, from.kind(fromIndex), from.id(fromIndex), from.lo(fromIndex), from.hi(fromIndex));
    }

    /** Narrows len's bounds (every register holding len shares them); false when they become empty. */
    boolean narrowLen(long l, long h) {
        hash = 0;
        facts.lenLo = Math.max(facts.lenLo, l);
        facts.lenHi = Math.min(facts.lenHi, h);
        return facts.lenLo <= facts.lenHi;
    }

    /** For {@link RegionFacts} changes made through {@link #facts()}. */
    void touched() { hash = 0; }

    /** Every register and slot holding a packet pointer with {@code id} becomes unknown (id is reused). */
    void forgetId(int id) {
        for (int i = 0; i < REGS; i++) if (regKind[i] == PACKET && regId[i] == id) setTop(i);
        for (long m = known; m != 0; m &= m - 1) {
            int k = Long.numberOfTrailingZeros(m);
            if (slotKind[k] == PACKET && slotId[k] == id) setTop(REGS + k);
        }
        facts.remove(id);
        hash = 0;
    }

    /** Drops the facts of ids no register or slot holds any more (keeps states comparable). */
    void dropUnusedIds() {
        if (facts == null) return;
        facts.retain(id -> {
            for (int i = 0; i < REGS; i++) if (regKind[i] == PACKET && regId[i] == id) return true;
            for (long m = known; m != 0; m &= m - 1) {
                int k = Long.numberOfTrailingZeros(m);
                if (slotKind[k] == PACKET && slotId[k] == id) return true;
            }
            return false;
        });
        hash = 0;
    }

    private void set(int i, byte kind, int id, long l, long h) {
        hash = 0;
        if (kind == LEN || kind == END) { l = 0; h = 0; }
        if (i < REGS) {
            regs[2 * i] = l;
            regs[2 * i + 1] = h;
            regKind[i] = kind;
            regId[i] = id;
            return;
        }
        int k = i - REGS;
        long bit = 1L << k;
        if (kind == SCALAR && l == Long.MIN_VALUE && h == Long.MAX_VALUE) {
            known &= ~bit;
            return;
        }
        if (known == 0) {
            slots = new long[2 * SLOTS];
            slotKind = new byte[SLOTS];
            slotId = new int[SLOTS];
        }
        slots[2 * k] = l;
        slots[2 * k + 1] = h;
        slotKind[k] = kind;
        slotId[k] = id;
        known |= bit;
    }

    // ---- stack slots: slot k holds the 8 bytes at r10 - 512 + 8k ---------------------------

    /** The slot an 8-byte access at frame offset {@code off} fills exactly, or -1. */
    static int slotAt(long off) {
        if (off < -Limits.STACK_SIZE || off > -8 || (off & 7) != 0) return -1;
        return (int) ((off + Limits.STACK_SIZE) / 8);
    }

    static int slotIndex(int slot) { return REGS + slot; }

    /** Forgets every slot that a write of {@code size} bytes at frame offsets {@code [l, h]} may touch. */
    void clobberSlots(long l, long h, int size) {
        long from = Math.max(l, -Limits.STACK_SIZE), to = Math.min(h + size, 0);
        for (int k = 0; k < SLOTS; k++) {
            long start = -Limits.STACK_SIZE + 8L * k;
            if (start < to && start + 8 > from) setTop(REGS + k);
        }
    }

    void clobberAllSlots() {
        hash = 0;
        known = 0;
    }

    /** True when every concrete state this one stands for is also one {@code other} stands for. */
    boolean subsumedBy(AbstractState other) {
        for (int i = 0; i < REGS; i++) if (!within(i, other)) return false;
        for (long m = other.known; m != 0; m &= m - 1) {
            if (!within(REGS + Long.numberOfTrailingZeros(m), other)) return false;
        }
        return other.facts == null || facts.within(other.facts);
    }

    private boolean within(int i, AbstractState other) {
        if (other.isTop(i)) return true;
        byte k = kind(i);
        if (k != other.kind(i) || id(i) != other.id(i)) return false;
        if (k == LEN || k == END) return true; // len's bounds are compared with the facts
        return lo(i) >= other.lo(i) && hi(i) <= other.hi(i);
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof AbstractState s) || s.known != known || s.hashCode() != hashCode() || !Arrays.equals(regs, s.regs)
                || !Arrays.equals(regKind, s.regKind) || !Arrays.equals(regId, s.regId) || !Objects.equals(facts, s.facts)) return false;
        for (long m = known; m != 0; m &= m - 1) {
            int k = Long.numberOfTrailingZeros(m);
            if (slots[2 * k] != s.slots[2 * k] || slots[2 * k + 1] != s.slots[2 * k + 1]
                    || slotKind[k] != s.slotKind[k] || slotId[k] != s.slotId[k]) return false;
        }
        return true;
    }

    @Override public int hashCode() {
        if (hash == 0) {
            long h = StateHash.add(known, facts == null ? 0 : facts.hashCode());
            for (int i = 0; i < REGS; i++) h = StateHash.addValue(h, regs[2 * i], regs[2 * i + 1], regKind[i], regId[i]);
            for (long m = known; m != 0; m &= m - 1) {
                int k = Long.numberOfTrailingZeros(m);
                h = StateHash.addValue(h, slots[2 * k], slots[2 * k + 1], slotKind[k], slotId[k]);
            }
            int folded = StateHash.finish(h);
            hash = folded == 0 ? 1 : folded;
        }
        return hash;
    }

    @Override public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < N; i++) {
            if (isTop(i)) continue;
            b.append(i < REGS ? "r" + i : "fp" + (-Limits.STACK_SIZE + 8 * (i - REGS))).append('=');
            switch (kind(i)) {
                case LEN: b.append("len "); continue;
                case END: b.append("end "); continue;
                case FRAME: b.append("fp+"); break;
                case PACKET: b.append("pkt+v").append(id(i)).append('+'); break;
                case CTX: b.append("ctx+"); break;
                default: break;
            }
            b.append('[').append(lo(i)).append(',').append(hi(i)).append("] ");
        }
        if (facts != null) b.append(facts);
        return b.toString().trim();
    }
}
