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

    // ---- entering and leaving frames: one rule for the engines that keep registers in a long[] ----

    /** Per frame depth d: r6-r10 of the frame below it (d - 1) while d is open; a call saves r6-r9 only. */
    private final long[] saved = new long[Limits.MAX_CALL_FRAMES * 5];
    /** Per frame depth d: the pc after the {@code call} that opened it. */
    private final int[] returnPc = new int[Limits.MAX_CALL_FRAMES];

    /**
     * {@code call local} at {@code pc} with {@code depth} frames open: saves the caller's r6-r9 and the
     * return pc, points r10 at the new frame and zeroes its top {@code zeroBytes}; returns the new depth.
     */
    public int enterCall(String program, int pc, long[] regs, int depth, int zeroBytes) {
        RunRules.checkCallDepth(program, pc, depth);
        System.arraycopy(regs, 6, saved, depth * 5, 4);
        returnPc[depth] = pc + 1;
        regs[10] = stack(depth, zeroBytes);
        return depth + 1;
    }

    /** {@code exit} from a subprogram, {@code depth} frames left open: restores the caller's r6-r10; returns the pc after the call. */
    public int leaveCall(long[] regs, int depth) {
        System.arraycopy(saved, depth * 5, regs, 6, 4);
        regs[10] = frameTop(depth - 1);
        return returnPc[depth];
    }

    /**
     * A callback a helper runs from the frame below {@code depth}: saves r6-r10, sets r1-r5 to the
     * callback's arguments, opens frame {@code depth} (top {@code zeroBytes} zeroed); returns the new depth.
     * The caller checks budget and depth first ({@link RunRules#checkFrameOpen}).
     */
    public int enterCallback(long[] regs, int depth, int zeroBytes, long r1, long r2, long r3, long r4, long r5) {
        System.arraycopy(regs, 6, saved, depth * 5, 5);
        regs[1] = r1; regs[2] = r2; regs[3] = r3; regs[4] = r4; regs[5] = r5;
        regs[10] = stack(depth, zeroBytes);
        return depth + 1;
    }

    /** The callback opened at {@code depth} returned or failed: restores the r6-r10 it saved. */
    public void leaveCallback(long[] regs, int depth) { System.arraycopy(saved, depth * 5, regs, 6, 5); }

    private long stack(int k, int zeroBytes) {
        zeroFrame(k, zeroBytes);
        return frameTop(k);
    }

    public void free() {
        NativeMemory.free(base);
        NativeMemory.free(scratchBase);
    }
}
