package dev.bpf4j.unwind.sampling;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

import static dev.bpf4j.unwind.sampling.PerfAbi.*;

/**
 * Drains one perf ring: reads {@code data_head} (acquire), copies each record between the tail and
 * the head out of the ring — a record may wrap around the end of the data area — parses it, and
 * then releases the space by storing {@code data_tail}. Records are handed over as parsed, so the
 * consumer must not keep the scratch buffer.
 */
public final class RingReader {
    private final RingMemory ring;
    private final SampleFormat format;
    private long tail;
    private byte[] scratch;

    public RingReader(RingMemory ring, SampleFormat format) {
        long size = ring.dataSize();
        if (size <= 0 || (size & (size - 1)) != 0) throw new IllegalArgumentException("ring data size " + size + " is not a power of two");
        this.ring = ring;
        this.format = format;
        this.scratch = new byte[Math.max(HEADER_SIZE, format.maxRecordSize())];
    }

    /** Hands every complete record to {@code sink}; returns how many records were read. */
    public int drain(Consumer<PerfRecord> sink) {
        long head = ring.dataHead();
        long size = ring.dataSize();
        int n = 0;
        if (head - tail > size) {
            // Cannot happen while the tail is ours: the kernel never overruns it in this (non-overwrite) mode.
            throw new IllegalStateException("ring overrun: head " + head + ", tail " + tail + ", size " + size);
        }
        while (tail < head) {
            copy(tail, scratch, 0, HEADER_SIZE);
            ByteBuffer h = ByteBuffer.wrap(scratch, 0, HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            int type = h.getInt(0);
            int recordSize = Short.toUnsignedInt(h.getShort(6));
            if (recordSize < HEADER_SIZE || tail + recordSize > head) {
                throw new IllegalStateException("corrupt ring record at " + tail + ": size " + recordSize + ", head " + head);
            }
            if (recordSize > scratch.length) scratch = new byte[recordSize];
            copy(tail, scratch, 0, recordSize);
            sink.accept(parse(type, recordSize));
            tail += recordSize;
            n++;
        }
        ring.dataTail(tail);
        return n;
    }

    /** Bytes written but not yet read at the last {@link #drain}. */
    public long tail() { return tail; }

    private PerfRecord parse(int type, int length) {
        switch (type) {
            case PERF_RECORD_SAMPLE:
                return format.parseSample(scratch, length);
            case PERF_RECORD_LOST: {
                ByteBuffer b = ByteBuffer.wrap(scratch, 0, length).order(ByteOrder.LITTLE_ENDIAN);
                if (length < HEADER_SIZE + 16) throw new IllegalArgumentException("PERF_RECORD_LOST of " + length + " bytes is truncated");
                return new PerfRecord.Lost(b.getLong(HEADER_SIZE), b.getLong(HEADER_SIZE + 8));
            }
            default:
                return new PerfRecord.Other(type);
        }
    }

    /** Copies {@code length} bytes from ring position {@code position}, in two parts when they wrap. */
    private void copy(long position, byte[] dst, int dstOffset, int length) {
        long size = ring.dataSize();
        long offset = position & (size - 1);
        int first = (int) Math.min(length, size - offset);
        ring.copy(offset, dst, dstOffset, first);
        if (first < length) ring.copy(0, dst, dstOffset + first, length - first);
    }
}
