package dev.bpf4j.runtime;

import java.util.List;

/**
 * A block of native memory a program may access during one run: {@code [start, start + length)}.
 * The stack is not a region: each engine checks stack accesses against the live frames itself.
 */
public record MemoryRegion(String name, long start, long length, boolean writable) {
    public MemoryRegion {
        if (length < 0) throw new IllegalArgumentException("negative length");
    }

    public long end() { return start + length; }

    /**
     * True when two region lists hold equal regions in the same order. The engines keep a table of
     * the last run's regions and rebuild it only when this is false: a caller that builds a new
     * {@link RunContext} for every run over the same buffer keeps the table (an indexed loop, no
     * iterator: this runs on every run whose list is not the last one's).
     */
    public static boolean sameRegions(List<MemoryRegion> a, List<MemoryRegion> b) {
        if (a == b) return true;
        if (a == null || b == null) return false;
        int n = a.size();
        if (n != b.size()) return false;
        for (int i = 0; i < n; i++) {
            if (!a.get(i).equals(b.get(i))) return false;
        }
        return true;
    }

    /** True when {@code [address, address + size)} lies inside this region with the needed permission. */
    public boolean allows(long address, int size, boolean write) {
        return (!write || writable)
                && Long.compareUnsigned(address, start) >= 0
                && Long.compareUnsigned(address + size, end()) <= 0
                && Long.compareUnsigned(address, address + size) < 0;
    }
}
