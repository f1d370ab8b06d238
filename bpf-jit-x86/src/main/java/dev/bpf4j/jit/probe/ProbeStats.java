package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.NativeMemory;

/**
 * The native counters of one attachment: hits, failed runs, runs skipped because the thread was
 * already inside a probe, and the words of the last native failure (the JIT env block's status,
 * kind, descriptor, address). The entry trampoline counts hits per CPU ({@link PerCpuHits}, from
 * {@link #PER_CPU} on, a cache line each); everything else is a locked add on the shared words.
 */
final class ProbeStats implements AutoCloseable {
    static final int HITS = 0, ERRORS = 8, MISSED = 16, LAST_STATUS = 24, LAST_KIND = 32, LAST_DESC = 40, LAST_ADDR = 48;
    /** Per-CPU counts the kernel aborted and the trampoline started over (rseq restarts). */
    static final int RESTARTS = 56;
    /** The per-CPU hit counters, from a cache line boundary. */
    static final int PER_CPU = 64;
    static final int SIZE = PER_CPU + PerCpuHits.CPUS * PerCpuHits.STRIDE;

    private final long block = NativeMemory.allocate(SIZE + PerCpuHits.STRIDE);
    private final long address = (block + PerCpuHits.STRIDE - 1) & -PerCpuHits.STRIDE;
    private boolean freed;

    ProbeStats() { NativeMemory.setMemory(address, SIZE, (byte) 0); }

    long address() { return address; }

    /** Hits counted on the shared word and on every CPU's. */
    long hits() { return get(HITS) + PerCpuHits.sum(address + PER_CPU); }

    long get(int field) { return NativeMemory.getLongVolatile(address + field); }

    void add(int field, long delta) { NativeMemory.getAndAddLong(address + field, delta); }

    /** Frees the block; only once no trampoline can reach it any more (see {@link NativeProbe}). */
    @Override public synchronized void close() {
        if (freed) return;
        freed = true;
        NativeMemory.free(block);
    }
}
