package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * One zeroed off-heap block that never moves: the preallocated element pool of a map. Addresses handed
 * to programs point into it and stay valid memory until {@link #free()}.
 */
final class NativeArena {
    private final long base;
    private final long size;
    private volatile boolean freed;

    NativeArena(long size) {
        this.size = size;
        this.base = NativeMemory.allocate(Math.max(size, 8));
    }

    long base() { return base; }
    long size() { return size; }

    void free() {
        if (freed) return;
        freed = true;
        NativeMemory.free(base);
    }
}
