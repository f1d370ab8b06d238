package dev.bpf4j.jit.analysis;

import dev.bpf4j.runtime.Limits;

import java.util.Arrays;

/**
 * One abstract machine state of {@link StackProof}: for each register r0-r10 and each 8-byte
 * stack slot of the current frame, either a <b>scalar</b> whose signed 64-bit value lies in
 * {@code [lo, hi]}, or a <b>frame pointer</b> whose value is {@code r10 + off} with off in
 * {@code [lo, hi]}. "Anything" (uninitialised, clobbered, unknown memory) is the scalar
 * {@code [MIN, MAX]}: it proves nothing, so a value only counts as a frame pointer when every
 * path made it one. Slots are indexes {@code REGS..REGS+63}; a bit mask marks the few that hold
 * anything better than "anything", so copies, hashes and comparisons stay cheap.
 */
final class AbstractState {
    static final int REGS = 11;
    static final int SLOTS = Limits.STACK_SIZE / 8; // 64: one bit each in `known`
    static final int N = REGS + SLOTS;
    /** Frame offsets past this are treated as unknown (keeps offset arithmetic far from overflow). */
    static final long MAX_FRAME_OFFSET = 1L << 32;

    /** lo, hi of index i at [2i], [2i + 1]: registers always, slots only while some slot is known. */
    private final long[] regs;
    private long[] slots;
    /** Bit i: index i (register, or slot i - REGS) is a frame pointer. */
    private int regFrame;
    private long slotFrame;
    /** Bit k: slot k holds something better than "anything". */
    private long known;
    private int hash;

    private AbstractState(long[] regs, long[] slots, int regFrame, long slotFrame, long known) {
        this.regs = regs;
        this.slots = slots;
        this.regFrame = regFrame;
        this.slotFrame = slotFrame;
        this.known = known;
    }

    /** A function's entry: r10 = frame + 0, every other register and slot unknown. */
    static AbstractState entry() {
        AbstractState s = new AbstractState(new long[2 * REGS], null, 0, 0, 0);
        for (int i = 0; i < REGS; i++) s.setTop(i);
        s.setFrame(10, 0, 0);
        return s;
    }

    AbstractState copy() {
        return new AbstractState(regs.clone(), known == 0 ? null : slots.clone(), regFrame, slotFrame, known);
    }

    boolean isFrame(int i) {
        if (i < REGS) return (regFrame & (1 << i)) != 0;
        return isKnown(i) && (slotFrame & (1L << (i - REGS))) != 0;
    }

    long lo(int i) { return i < REGS ? regs[2 * i] : isKnown(i) ? slots[2 * (i - REGS)] : Long.MIN_VALUE; }
    long hi(int i) { return i < REGS ? regs[2 * i + 1] : isKnown(i) ? slots[2 * (i - REGS) + 1] : Long.MAX_VALUE; }

    private boolean isKnown(int i) { return (known & (1L << (i - REGS))) != 0; }

    boolean isTop(int i) { return !isFrame(i) && lo(i) == Long.MIN_VALUE && hi(i) == Long.MAX_VALUE; }

    void setTop(int i) { setScalar(i, Long.MIN_VALUE, Long.MAX_VALUE); }

    void setScalar(int i, long l, long h) { set(i, false, l, h); }

    /** {@code r10 + [l, h]}; unknown when the offsets are implausibly far from the frame. */
    void setFrame(int i, long l, long h) {
        if (l < -MAX_FRAME_OFFSET || h > MAX_FRAME_OFFSET) setTop(i);
        else set(i, true, l, h);
    }

    void copyValue(int to, AbstractState from, int fromIndex) { set(to, from.isFrame(fromIndex), from.lo(fromIndex), from.hi(fromIndex)); }

    private void set(int i, boolean f, long l, long h) {
        hash = 0;
        if (i < REGS) {
            regs[2 * i] = l;
            regs[2 * i + 1] = h;
            regFrame = f ? regFrame | (1 << i) : regFrame & ~(1 << i);
            return;
        }
        int k = i - REGS;
        long bit = 1L << k;
        if (!f && l == Long.MIN_VALUE && h == Long.MAX_VALUE) {
            known &= ~bit;
            slotFrame &= ~bit;
            return;
        }
        if (slots == null) slots = new long[2 * SLOTS];
        slots[2 * k] = l;
        slots[2 * k + 1] = h;
        known |= bit;
        slotFrame = f ? slotFrame | bit : slotFrame & ~bit;
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
        slotFrame = 0;
    }

    /** True when every concrete state this one stands for is also one {@code other} stands for. */
    boolean subsumedBy(AbstractState other) {
        for (int i = 0; i < REGS; i++) if (!within(i, other)) return false;
        for (long m = other.known; m != 0; m &= m - 1) {
            if (!within(REGS + Long.numberOfTrailingZeros(m), other)) return false;
        }
        return true;
    }

    private boolean within(int i, AbstractState other) {
        if (other.isTop(i)) return true;
        return isFrame(i) == other.isFrame(i) && lo(i) >= other.lo(i) && hi(i) <= other.hi(i);
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof AbstractState s) || s.known != known || s.regFrame != regFrame || s.slotFrame != slotFrame
                || s.hashCode() != hashCode() || !Arrays.equals(regs, s.regs)) return false;
        for (long m = known; m != 0; m &= m - 1) {
            int k = Long.numberOfTrailingZeros(m);
            if (slots[2 * k] != s.slots[2 * k] || slots[2 * k + 1] != s.slots[2 * k + 1]) return false;
        }
        return true;
    }

    @Override public int hashCode() {
        if (hash == 0) {
            int h = Arrays.hashCode(regs) * 31 + regFrame;
            h = h * 31 + Long.hashCode(known) + Long.hashCode(slotFrame);
            for (long m = known; m != 0; m &= m - 1) {
                int k = Long.numberOfTrailingZeros(m);
                h = h * 31 + Long.hashCode(slots[2 * k] * 0x9E3779B97F4A7C15L + slots[2 * k + 1]);
            }
            hash = h == 0 ? 1 : h;
        }
        return hash;
    }

    @Override public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < N; i++) {
            if (isTop(i)) continue;
            b.append(i < REGS ? "r" + i : "fp" + (-Limits.STACK_SIZE + 8 * (i - REGS))).append('=')
                    .append(isFrame(i) ? "fp+" : "").append('[').append(lo(i)).append(',').append(hi(i)).append("] ");
        }
        return b.toString().trim();
    }

}
