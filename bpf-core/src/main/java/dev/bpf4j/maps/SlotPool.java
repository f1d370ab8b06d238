package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * The free list of a preallocated element pool ({@code pcpu_freelist} in the kernel): a stack of slot
 * numbers, off-heap so that JIT code can take and return slots too. Layout ({@link #address()}):
 * a {@link SpinWord} lock at 0, the number of free slots at 4, then the free slots as u32 words from 8
 * (the top of the stack last). The lock is a leaf: nothing else is taken while holding it (a bucket
 * lock may be held when it is taken). It orders a slot's release by one thread before its reuse by another.
 */
final class SlotPool {
    static final int LOCK = 0, SIZE = 4, SLOTS = 8;

    private final long base;
    private volatile boolean freed;

    SlotPool(int slots) {
        base = NativeMemory.allocate(SLOTS + 4L * slots);
        for (int i = 0; i < slots; i++) NativeMemory.putInt(base + SLOTS + 4L * i, slots - 1 - i);
        NativeMemory.putInt(base + SIZE, slots);
    }

    /** The pool's native block, for JIT code that pops and pushes under its lock. */
    long address() { return base; }

    /** A free slot, or -1 when every slot is in use. */
    int pop() {
        SpinWord.lock(base + LOCK, "a hash map's free list");
        try {
            int size = NativeMemory.getInt(base + SIZE);
            if (size == 0) return -1;
            NativeMemory.putInt(base + SIZE, size - 1);
            return NativeMemory.getInt(base + SLOTS + 4L * (size - 1));
        } finally {
            SpinWord.unlock(base + LOCK);
        }
    }

    void push(int slot) {
        SpinWord.lock(base + LOCK, "a hash map's free list");
        try {
            int size = NativeMemory.getInt(base + SIZE);
            NativeMemory.putInt(base + SLOTS + 4L * size, slot);
            NativeMemory.putInt(base + SIZE, size + 1);
        } finally {
            SpinWord.unlock(base + LOCK);
        }
    }

    /** Free slots now (a racy read: it may be out of date as soon as it returns). */
    int available() { return NativeMemory.getIntVolatile(base + SIZE); }

    /** Frees the native block; the map is closed, and nothing may use it after this. */
    void free() {
        if (freed) return;
        freed = true;
        NativeMemory.free(base);
    }
}
