package dev.bpf4j.unwind;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A copy of stack memory taken at {@code base} (a sample's stack dump): reads outside it fail softly. */
public final class SnapshotMemoryView implements MemoryView {
    private final long base;
    private final ByteBuffer data;

    public SnapshotMemoryView(long base, byte[] bytes) { this(base, bytes, true); }

    private SnapshotMemoryView(long base, byte[] bytes, boolean copy) {
        this.base = base;
        this.data = ByteBuffer.wrap(copy ? bytes.clone() : bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A view over {@code bytes} itself, not a copy: for a sample's own stack array, which nothing
     * changes (copying its 16 KiB for each unwind was a seventh of the unwinder thread's CPU).
     */
    public static SnapshotMemoryView over(long base, byte[] bytes) { return new SnapshotMemoryView(base, bytes, false); }

    @Override public boolean contains(long address) {
        long off = address - base;
        return Long.compareUnsigned(address, base) >= 0 && off >= 0 && off <= data.capacity() - 8L;
    }

    @Override public long readLong(long address) {
        if (!contains(address)) throw new IndexOutOfBoundsException(String.format("0x%x outside the snapshot", address));
        return data.getLong((int) (address - base));
    }

    public long base() { return base; }

    public int size() { return data.capacity(); }
}
