package dev.bpf4j.unwind.sampling;

import java.util.function.Consumer;

import static dev.bpf4j.unwind.sampling.PerfAbi.*;

/**
 * Drains one perf ring: reads {@code data_head} (acquire), parses each record between the tail and
 * the head where it lies in the ring — a record may wrap around the end of the data area — and then
 * releases the space by storing {@code data_tail}. Only what a record hands over leaves the ring (a
 * sample's {@code dyn_size} bytes of stack, once, into its own array): copying each whole ~16.5 KiB
 * record out first, then the stack again, was most of the reader's CPU per sample.
 */
public final class RingReader {
    private final RingMemory ring;
    private final SampleFormat format;
    private final long mask;
    private final InRing record = new InRing();
    private final byte[] word = new byte[8];
    private long tail;

    public RingReader(RingMemory ring, SampleFormat format) {
        long size = ring.dataSize();
        if (size <= 0 || (size & (size - 1)) != 0) throw new IllegalArgumentException("ring data size " + size + " is not a power of two");
        this.ring = ring;
        this.format = format;
        this.mask = size - 1;
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
            long header = word(tail);
            int type = (int) header;
            int recordSize = (int) (header >>> 48);
            if (recordSize < HEADER_SIZE || tail + recordSize > head) {
                throw new IllegalStateException("corrupt ring record at " + tail + ": size " + recordSize + ", head " + head);
            }
            record.start = tail;
            sink.accept(parse(type, (int) (header >>> 32) & 0xffff, recordSize));
            tail += recordSize;
            n++;
        }
        ring.dataTail(tail);
        return n;
    }

    /** Bytes written but not yet read at the last {@link #drain}. */
    public long tail() { return tail; }

    private PerfRecord parse(int type, int misc, int length) {
        switch (type) {
            case PERF_RECORD_SAMPLE:
                return format.parseSample(record, length);
            case PERF_RECORD_COMM:
                return format.parseComm(record, misc, length);
            case PERF_RECORD_LOST:
                if (length < HEADER_SIZE + 16) throw new IllegalArgumentException("PERF_RECORD_LOST of " + length + " bytes is truncated");
                return new PerfRecord.Lost(record.getLong(HEADER_SIZE), record.getLong(HEADER_SIZE + 8));
            case PERF_RECORD_FORK: {
                if (length < HEADER_SIZE + 24) throw new IllegalArgumentException("PERF_RECORD_FORK of " + length + " bytes is truncated");
                long pids = record.getLong(HEADER_SIZE), tids = record.getLong(HEADER_SIZE + 8);
                return new PerfRecord.Fork((int) pids, (int) (pids >>> 32), (int) tids, (int) (tids >>> 32), record.getLong(HEADER_SIZE + 16));
            }
            default:
                return new PerfRecord.Other(type);
        }
    }

    /** The word at ring position {@code position}, put together from both ends when it wraps. */
    private long word(long position) {
        long offset = position & mask;
        if (offset + 8 <= mask + 1) return ring.getLong(offset);
        copy(position, word, 0, 8);
        long w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | (word[i] & 0xff);
        return w;
    }

    /** Copies {@code length} bytes from ring position {@code position}, in two parts when they wrap. */
    private void copy(long position, byte[] dst, int dstOffset, int length) {
        long offset = position & mask;
        int first = (int) Math.min(length, mask + 1 - offset);
        ring.copy(offset, dst, dstOffset, first);
        if (first < length) ring.copy(0, dst, dstOffset + first, length - first);
    }

    /** The record being parsed, read where it lies in the ring. */
    private final class InRing implements SampleFormat.RecordBytes {
        long start;

        @Override public long getLong(int at) { return word(start + at); }

        @Override public void copy(int at, byte[] dst, int dstOffset, int length) { RingReader.this.copy(start + at, dst, dstOffset, length); }
    }
}
