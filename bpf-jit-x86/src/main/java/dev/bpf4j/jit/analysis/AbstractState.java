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
    private static final int N = REGS + SLOTS;
    /** Frame offsets past this are treated as unknown (keeps offset arithmetic far from overflow). */
    static final long MAX_FRAME_OFFSET = 1L << 32;

    private final boolean[] frame;
    private final long[] lo, hi;
    /** Bit k: slot k holds something better than "anything". */
    private long known;
    private int hash;

    private AbstractState(boolean[] frame, long[] lo, long[] hi, long known) {
        this.frame = frame;
        this.lo = lo;
        this.hi = hi;
        this.known = known;
    }

    /** A function's entry: r10 = frame + 0, every other register and slot unknown. */
    static AbstractState entry() {
        AbstractState s = new AbstractState(new boolean[N], new long[N], new long[N], 0);
        for (int i = 0; i < REGS; i++) s.setTop(i);
        s.setFrame(10, 0, 0);
        return s;
    }

    AbstractState copy() { return new AbstractState(frame.clone(), lo.clone(), hi.clone(), known); }

    boolean isFrame(int i) { return (i < REGS || isKnown(i)) && frame[i]; }
    long lo(int i) { return i < REGS || isKnown(i) ? lo[i] : Long.MIN_VALUE; }
    long hi(int i) { return i < REGS || isKnown(i) ? hi[i] : Long.MAX_VALUE; }

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
        frame[i] = f;
        lo[i] = l;
        hi[i] = h;
        if (i >= REGS) {
            long bit = 1L << (i - REGS);
            if (!f && l == Long.MIN_VALUE && h == Long.MAX_VALUE) known &= ~bit;
            else known |= bit;
        }
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
        return true;
    }

    private boolean within(int i, AbstractState other) {
        if (other.isTop(i)) return true;
        return isFrame(i) == other.isFrame(i) && lo(i) >= other.lo(i) && hi(i) <= other.hi(i);
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof AbstractState s) || s.known != known || s.hashCode() != hashCode()) return false;
        for (int i = 0; i < REGS; i++) if (!same(i, s)) return false;
        for (long m = known; m != 0; m &= m - 1) if (!same(REGS + Long.numberOfTrailingZeros(m), s)) return false;
        return true;
    }

    private boolean same(int i, AbstractState s) { return frame[i] == s.frame[i] && lo[i] == s.lo[i] && hi[i] == s.hi[i]; }

    @Override public int hashCode() {
        if (hash == 0) {
            int h = Long.hashCode(known);
            for (int i = 0; i < REGS; i++) h = h * 31 + Long.hashCode(lo[i] * 0x9E3779B97F4A7C15L + hi[i]) + (frame[i] ? 7 : 0);
            for (long m = known; m != 0; m &= m - 1) {
                int i = REGS + Long.numberOfTrailingZeros(m);
                h = h * 31 + Long.hashCode(lo[i] * 0x9E3779B97F4A7C15L + hi[i]) + (frame[i] ? 7 : 0);
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

    static String describe(AbstractState s) { return s + " " + Arrays.toString(new long[]{s.known}); }
}
