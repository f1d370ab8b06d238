package dev.bpf4j.unwind.sampling;

/**
 * A perf ring buffer as the reader sees it: the {@code data_head} the kernel advances, the
 * {@code data_tail} the reader gives back, and the data area of {@link #dataSize()} bytes (a
 * power of two) that records wrap around. Offsets passed to {@link #copy} and {@link #getLong}
 * are already reduced modulo the data size.
 */
public interface RingMemory {
    /** {@code data_head}, read with acquire semantics: the records before it are visible once it is. */
    long dataHead();

    /** Stores {@code data_tail} with release semantics: the kernel may overwrite what lies before it. */
    void dataTail(long tail);

    long dataSize();

    /** Copies {@code length} bytes at {@code offset} of the data area (no wrap inside one call). */
    void copy(long offset, byte[] dst, int dstOffset, int length);

    /** The little-endian word at {@code offset} of the data area ({@code offset + 8 <= dataSize()}). */
    long getLong(long offset);
}
