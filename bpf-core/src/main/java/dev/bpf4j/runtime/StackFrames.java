package dev.bpf4j.runtime;

/**
 * The off-heap BPF stack of one run: {@link Limits#MAX_CALL_FRAMES} frames of
 * {@link Limits#STACK_SIZE} bytes, the main program's at the top and each callee below its caller,
 * as on a native stack. A {@link #GAP}-byte hole between frames stands for the saved rbp and return
 * address of the JIT's frames: it is never accessible, so an access straddling two frames fails.
 * A separate block holds one {@link Limits#STACK_SIZE}-byte helper scratch buffer per frame depth.
 * Shared by the engines whose frames live off-heap (the interpreter, the JVM-bytecode engine), so
 * that both lay frames out and judge frame accesses by one rule.
 */
public final class StackFrames {
    public static final int GAP = 16;
    public static final int STRIDE = Limits.STACK_SIZE + GAP;
    public static final long BYTES = (long) STRIDE * Limits.MAX_CALL_FRAMES;

    /** Lowest address of the block (the gap below the innermost possible frame). */
    public final long base;
    /** r10 of the main program's frame: the end of the block. */
    public final long top;
    /** Scratch buffer of depth d (1..MAX_CALL_FRAMES) at scratchBase + (d - 1) * STACK_SIZE. */
    private final long scratchBase;

    public StackFrames() {
        this.base = NativeMemory.allocate(BYTES);
        this.top = base + BYTES;
        this.scratchBase = NativeMemory.allocate((long) Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES);
    }

    /** The helper scratch buffer of frame depth {@code depth} (1 = main program). */
    public long scratch(int depth) { return scratchBase + (long) (depth - 1) * Limits.STACK_SIZE; }

    /** True when {@code [a, end)} lies inside one scratch buffer whose depth bit is set in {@code live}. */
    public boolean inLiveScratch(long a, long end, int live) {
        long off = a - scratchBase;
        if (off < 0 || off >= (long) Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES) return false;
        int k = (int) (off / Limits.STACK_SIZE);
        return (live & (1 << (k + 1))) != 0 && end - scratchBase <= (long) (k + 1) * Limits.STACK_SIZE;
    }

    /** r10 of frame {@code k} (0 = main program). */
    public long frameTop(int k) { return top - (long) k * STRIDE; }

    /**
     * Zeroes the top {@code bytes} (a multiple of 8) of frame {@code k}: every frame reads as zero
     * until written (docs/runtime-semantics.md), and a program reads at most
     * the engine's frame-zeroing depth bytes below r10. Plain 8-byte stores: Unsafe.setMemory
     * is a call into the VM that costs more than zeroing a whole frame this way.
     */
    public void zeroFrame(int k, int bytes) {
        long top = frameTop(k);
        for (long a = top - bytes; a < top; a += 8) NativeMemory.putLong(a, 0);
    }

    /** Zeroes the part of frame {@code k} below its top {@code zeroed} bytes. */
    public void zeroBelow(int k, int zeroed) { zeroBelow(frameTop(k), zeroed); }

    /** Zeroes the part of the frame whose top is {@code top} below its top {@code zeroed} bytes (a multiple of 8). */
    public static void zeroBelow(long top, int zeroed) {
        for (long a = top - Limits.STACK_SIZE; a < top - zeroed; a += 8) NativeMemory.putLong(a, 0);
    }

    /**
     * True when {@code [a, end)} (a non-empty range that does not wrap) lies inside one of the
     * {@code live} innermost-to-outermost frames 0 .. live-1.
     */
    public boolean inLiveFrame(long a, long end, int live) { return liveFrameOf(a, end, live) >= 0; }

    /** The frame of {@link #inLiveFrame}, or -1. */
    public int liveFrameOf(long a, long end, int live) {
        if (Long.compareUnsigned(a, base) < 0 || Long.compareUnsigned(end, top) > 0) return -1;
        long k = (top - 1 - a) / STRIDE;
        if (k >= live) return -1;
        long frameEnd = top - k * STRIDE;
        return a >= frameEnd - Limits.STACK_SIZE && end <= frameEnd ? (int) k : -1;
    }

    public void free() {
        NativeMemory.free(base);
        NativeMemory.free(scratchBase);
    }
}
