package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.NativeMemory;

/**
 * The native counters of one attachment, which the trampoline updates with locked adds: hits,
 * failed runs, runs skipped because the thread was already inside a probe, and the words of the
 * last native failure (the JIT env block's status, kind, descriptor, address).
 */
final class ProbeStats implements AutoCloseable {
    static final int HITS = 0, ERRORS = 8, MISSED = 16, LAST_STATUS = 24, LAST_KIND = 32, LAST_DESC = 40, LAST_ADDR = 48;
    static final int SIZE = 56;

    private final long address = NativeMemory.allocate(SIZE);
    private boolean freed;

    ProbeStats() { NativeMemory.setMemory(address, SIZE, (byte) 0); }

    long address() { return address; }

    long get(int field) { return NativeMemory.getLongVolatile(address + field); }

    void add(int field, long delta) { NativeMemory.getAndAddLong(address + field, delta); }

    /** Frees the block; only once no trampoline can reach it any more (see {@link NativeProbe}). */
    @Override public synchronized void close() {
        if (freed) return;
        freed = true;
        NativeMemory.free(address);
    }
}
