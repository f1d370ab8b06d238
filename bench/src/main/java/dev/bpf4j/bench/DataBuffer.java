package dev.bpf4j.bench;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

/**
 * A workload's input copied off-heap, where both BPF engines and the gcc code read it: the address
 * and length, and the {@link RunContext} that passes them as r1/r2 with the buffer as the one
 * (read-only) region.
 */
public final class DataBuffer implements AutoCloseable {
    private final long address;
    private final long length;
    private final RunContext context;

    public DataBuffer(byte[] data) {
        this.length = data.length;
        this.address = NativeMemory.allocate(data.length);
        NativeMemory.write(address, data, 0, data.length);
        this.context = RunContext.builder()
                .arg(1, address).arg(2, length)
                .region(new MemoryRegion("data", address, length, false))
                .build();
    }

    public long address() { return address; }

    public long length() { return length; }

    public RunContext context() { return context; }

    @Override public void close() { NativeMemory.free(address); }
}
