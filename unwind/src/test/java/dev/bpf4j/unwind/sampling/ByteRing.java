package dev.bpf4j.unwind.sampling;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A ring in a byte array that a test fills as the kernel would: records written at head, wrapping. */
final class ByteRing implements RingMemory {
    final byte[] data;
    long head;
    long tail;

    ByteRing(int size) { data = new byte[size]; }

    /** Writes {@code record} at the head, wrapping around the end, and advances the head. */
    void write(byte[] record) {
        for (int i = 0; i < record.length; i++) data[(int) ((head + i) % data.length)] = record[i];
        head += record.length;
    }

    @Override public long dataHead() { return head; }
    @Override public void dataTail(long t) { tail = t; }
    @Override public long dataSize() { return data.length; }
    @Override public void copy(long offset, byte[] dst, int dstOffset, int length) {
        if (offset + length > data.length) throw new AssertionError("copy across the ring end: " + offset + "+" + length);
        System.arraycopy(data, (int) offset, dst, dstOffset, length);
    }

    @Override public long getLong(long offset) {
        if (offset + 8 > data.length) throw new AssertionError("word across the ring end: " + offset);
        return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).getLong((int) offset);
    }

    static ByteBuffer le(int size) { return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN); }

    /** A PERF_RECORD_SAMPLE as the kernel lays it out for {@code format}. */
    static byte[] sample(SampleFormat format, int pid, int tid, long time, long ip, long bp, long sp, byte[] stack, long[] chain) {
        int size = 8 + 8 + 8 + 8 + (format.callchain() ? 8 + 8 * chain.length : 0) + 8 + 24 + 8 + format.stackSize() + 8;
        ByteBuffer b = le(size);
        b.putInt(PerfAbi.PERF_RECORD_SAMPLE).putShort((short) 2).putShort((short) size);
        b.putLong(ip).putInt(pid).putInt(tid).putLong(time);
        if (format.callchain()) {
            b.putLong(chain.length);
            for (long c : chain) b.putLong(c);
        }
        b.putLong(2).putLong(bp).putLong(sp).putLong(ip);              // PERF_SAMPLE_REGS_ABI_64
        b.putLong(format.stackSize());
        b.put(stack);
        b.position(b.position() + format.stackSize() - stack.length);  // the rest of the fixed-size dump
        b.putLong(stack.length);                                        // dyn_size
        return b.array();
    }

    static byte[] lost(long id, long count) {
        ByteBuffer b = le(24);
        b.putInt(PerfAbi.PERF_RECORD_LOST).putShort((short) 0).putShort((short) 24).putLong(id).putLong(count);
        return b.array();
    }
}
