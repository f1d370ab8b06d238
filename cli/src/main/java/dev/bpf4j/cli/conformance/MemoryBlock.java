package dev.bpf4j.cli.conformance;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

/**
 * The suites' memory block copied off-heap for one run: r1 = its address (0 when there is none),
 * r2 = its length. Each run gets a fresh copy because programs write to it.
 */
public final class MemoryBlock implements AutoCloseable {
    private final long address;
    private final int length;

    private MemoryBlock(long address, int length) {
        this.address = address;
        this.length = length;
    }

    /** Copies {@code bytes} off-heap; {@code null} means no block (r1 = r2 = 0). */
    public static MemoryBlock of(byte[] bytes) {
        if (bytes == null) return new MemoryBlock(0, 0);
        long a = NativeMemory.allocate(bytes.length);
        NativeMemory.write(a, bytes, 0, bytes.length);
        return new MemoryBlock(a, bytes.length);
    }

    /** The run context of the conformance convention: r1, r2 and a writable region. */
    public RunContext context() {
        RunContext.Builder b = RunContext.builder().arg(1, address).arg(2, length);
        if (address != 0 && length > 0) b.region(new MemoryRegion("mem", address, length, true));
        return b.build();
    }

    public byte[] contents() { return address == 0 ? new byte[0] : NativeMemory.read(address, length); }

    @Override public void close() { NativeMemory.free(address); }
}
