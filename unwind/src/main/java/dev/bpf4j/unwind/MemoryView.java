package dev.bpf4j.unwind;

/** Memory an unwinder may read: a live thread stack or a sampled snapshot. Reads outside it fail softly. */
public interface MemoryView {
    /** True when the 8 bytes at {@code address} can be read. */
    boolean contains(long address);

    /** The little-endian 8 bytes at {@code address}; only called when {@link #contains} is true. */
    long readLong(long address);
}
