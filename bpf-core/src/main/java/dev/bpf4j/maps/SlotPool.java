package dev.bpf4j.maps;

/**
 * The free list of a preallocated element pool ({@code pcpu_freelist} in the kernel): a stack of slot
 * numbers. Its monitor is a leaf lock (nothing else is taken while holding it), and it orders a slot's
 * release by one thread before its reuse by another.
 */
final class SlotPool {
    private final int[] free;
    private int size;

    SlotPool(int slots) {
        free = new int[slots];
        for (int i = 0; i < slots; i++) free[i] = slots - 1 - i;
        size = slots;
    }

    /** A free slot, or -1 when every slot is in use. */
    synchronized int pop() { return size == 0 ? -1 : free[--size]; }

    synchronized void push(int slot) { free[size++] = slot; }

    synchronized int available() { return size; }
}
