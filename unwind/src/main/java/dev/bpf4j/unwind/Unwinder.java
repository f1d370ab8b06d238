package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Unwinds a stack from a starting register set (ip, sp, bp) over a {@link MemoryView}: with the
 * unwind rows of a {@link CodeRegion} where the code map knows the code (exact at every
 * instruction of JIT code and trampolines), with the frame pointer elsewhere (the trace is then
 * marked unreliable). Every read goes through the view, so a garbage frame pointer ends the walk.
 * The walk stops at {@link #MAX_DEPTH} ips, on a null or non-increasing frame pointer, on a frame
 * pointer below the stack pointer, and on a return address that is not code.
 */
public final class Unwinder {
    /** Longest trace (the kernel's PERF_MAX_STACK_DEPTH). */
    public static final int MAX_DEPTH = 127;
    private static final Unwinder GLOBAL = new Unwinder(ProcessCode.global());

    private final CodeMap regions;
    private final LongPredicate isCode;

    /**
     * @param regions code with unwind rows
     * @param isCode  whether a return address points at code; the walk ends before one that does not
     */
    public Unwinder(CodeMap regions, LongPredicate isCode) {
        this.regions = regions;
        this.isCode = isCode;
    }

    /** Over this process: the JIT's regions, return addresses checked against the executable mappings. */
    public Unwinder(ProcessCode code) { this(code.jit(), code::isCode); }

    /** Over {@link ProcessCode#global()}. */
    public static Unwinder global() { return GLOBAL; }

    /**
     * Unwinds the calling thread's live stack, reading only {@code [sp, top of stack)}. A start
     * with {@code sp} off this thread's stack gives a trace of {@code ip} alone.
     */
    public StackTrace unwindCurrentThread(long ip, long sp, long bp) {
        return ThreadStack.current().viewFrom(sp)
                .map(view -> unwind(ip, sp, bp, view))
                .orElseGet(() -> new StackTrace(ip == 0 ? List.of() : List.of(ip), false));
    }

    public StackTrace unwind(long ip, long sp, long bp, MemoryView memory) {
        if (ip == 0) return StackTrace.EMPTY;
        List<Long> ips = new ArrayList<>();
        boolean reliable = true;
        // A return address is looked up at ip - 1: the call before it may be its function's last instruction.
        long lookup = ip;
        while (true) {
            ips.add(ip);
            if (ips.size() >= MAX_DEPTH) break;
            final long at = lookup;
            CfaRule rule = regions.find(at).map(r -> r.ruleAt(at)).orElse(null);
            if (rule == null) {
                rule = CfaRule.FRAME_POINTER;
                reliable = false;
            }
            long ra, nextSp, nextBp;
            boolean last = false;
            switch (rule) {
                case RETURN_AT_SP:
                    if (!memory.contains(sp)) return new StackTrace(ips, reliable);
                    ra = memory.readLong(sp);
                    nextSp = sp + 8;
                    nextBp = bp;
                    break;
                case RETURN_AT_SP_PLUS_8:
                    if (!memory.contains(sp) || !memory.contains(sp + 8)) return new StackTrace(ips, reliable);
                    nextBp = memory.readLong(sp);
                    ra = memory.readLong(sp + 8);
                    nextSp = sp + 16;
                    break;
                default:
                    if (bp == 0 || Long.compareUnsigned(bp, sp) < 0) return new StackTrace(ips, reliable);
                    if (!memory.contains(bp) || !memory.contains(bp + 8)) return new StackTrace(ips, reliable);
                    nextBp = memory.readLong(bp);
                    ra = memory.readLong(bp + 8);
                    nextSp = bp + 16;
                    // Frames grow down: a caller's frame lies above this one. Keep the return address
                    // read from this valid frame, then stop.
                    last = nextBp != 0 && Long.compareUnsigned(nextBp, bp) <= 0;
                    break;
            }
            if (ra == 0 || !isCode.test(ra)) break;
            ip = ra;
            lookup = ra - 1;
            sp = nextSp;
            bp = nextBp;
            if (last) {
                ips.add(ip);
                break;
            }
        }
        return new StackTrace(ips, reliable);
    }
}
