package dev.bpf4j.runtime;

import java.util.List;

/**
 * A run's memory regions as flat arrays, for the engines that check accesses in Java (the
 * interpreter and the JVM-bytecode engine), and the memory-check rule they share
 * (docs/runtime-semantics.md "Memory checks"): an access is allowed when it lies inside one region
 * (a writable one for a write) or, when the verifier typed it as a stack pointer, one live frame,
 * or, for a read, a live helper scratch buffer. An empty or wrapping range is never allowed.
 * The JIT keeps the same table in its env block, read by native code.
 */
public final class RegionTable {
    private long[] start = new long[4], end = new long[4];
    private boolean[] writable = new boolean[4];
    private int count;
    private List<MemoryRegion> bound;

    /** True when the table already holds {@code regions} (RunContext's lists are immutable: equal lists, same table). */
    public boolean holds(List<MemoryRegion> regions) { return MemoryRegion.sameRegions(regions, bound); }

    /** The list the table was last bound to. */
    public List<MemoryRegion> bound() { return bound; }

    public void bind(List<MemoryRegion> regions) {
        bound = regions;
        int n = regions.size();
        if (n > start.length) {
            start = new long[n];
            end = new long[n];
            writable = new boolean[n];
        }
        for (int i = 0; i < n; i++) {
            MemoryRegion r = regions.get(i);
            start[i] = r.start();
            end[i] = r.end();
            writable[i] = r.writable();
        }
        count = n;
    }

    /** A helper moved the packet: {@code now} in place of {@code old} for the rest of the run. */
    public void replace(MemoryRegion old, MemoryRegion now) { bind(RunRules.replaceRegion(bound, old, now)); }

    /** The index of the first region holding {@code [a, end)} ({@code end > a}), writable if {@code write}; -1 if none. */
    public int find(long a, long end, boolean write) {
        for (int i = 0; i < count; i++) {
            if ((!write || writable[i]) && Long.compareUnsigned(a, start[i]) >= 0 && Long.compareUnsigned(end, this.end[i]) <= 0) return i;
        }
        return -1;
    }

    public long start(int i) { return start[i]; }

    public long end(int i) { return end[i]; }

    /**
     * The memory-check rule for {@code [a, a + size)}: a region, else (if {@code frames}) one of the
     * {@code depth} live frames of {@code stack}, else for a read a scratch buffer live in {@code scratchLive}.
     */
    public boolean allows(long a, long size, boolean write, boolean frames, StackFrames stack, int depth, int scratchLive) {
        long e = a + size;
        if (Long.compareUnsigned(e, a) <= 0) return false; // empty or wraps around
        if (find(a, e, write) >= 0) return true;
        if (frames && stack.inLiveFrame(a, e, depth)) return true;
        return !write && scratchLive != 0 && stack.inLiveScratch(a, e, scratchLive);
    }
}
