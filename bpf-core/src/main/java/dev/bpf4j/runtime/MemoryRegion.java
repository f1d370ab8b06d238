package dev.bpf4j.runtime;

/**
 * A block of native memory a program may access during one run: {@code [start, start + length)}.
 * The stack is not a region: each engine checks stack accesses against the live frames itself.
 */
public record MemoryRegion(String name, long start, long length, boolean writable) {
    public MemoryRegion {
        if (length < 0) throw new IllegalArgumentException("negative length");
    }

    public long end() { return start + length; }

    /** True when {@code [address, address + size)} lies inside this region with the needed permission. */
    public boolean allows(long address, int size, boolean write) {
        return (!write || writable)
                && Long.compareUnsigned(address, start) >= 0
                && Long.compareUnsigned(address + size, end()) <= 0
                && Long.compareUnsigned(address, address + size) < 0;
    }
}
