package dev.bpf4j.unwind;

import com.kenai.jffi.MemoryIO;

/** Reads live process memory, bounded to {@code [low, high)} (e.g. the current thread's stack). */
public final class LiveMemoryView implements MemoryView {
    private static final MemoryIO IO = MemoryIO.getInstance();
    private final long low;
    private final long high;

    public LiveMemoryView(long low, long high) {
        if (Long.compareUnsigned(low, high) > 0) throw new IllegalArgumentException("empty range");
        this.low = low;
        this.high = high;
    }

    @Override public boolean contains(long address) {
        return Long.compareUnsigned(address, low) >= 0
                && Long.compareUnsigned(address, high - 8) <= 0
                && Long.compareUnsigned(high - low, 8) >= 0;
    }

    @Override public long readLong(long address) {
        if (!contains(address)) throw new IndexOutOfBoundsException(String.format("0x%x outside [0x%x, 0x%x)", address, low, high));
        return IO.getLong(address);
    }
}
