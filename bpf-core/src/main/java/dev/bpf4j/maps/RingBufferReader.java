package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The consumer side of a {@link RingBufMap}, as libbpf's {@code ring_buffer__poll}: reads committed
 * records in order from the consumer position, skips discarded ones, stops at the first record still
 * BUSY, and publishes the new consumer position. Not thread-safe: one reader per ring buffer.
 */
public final class RingBufferReader {
    private static final long MAX_WAIT_MS = 1;
    private final RingBufMap rb;

    RingBufferReader(RingBufMap rb) { this.rb = rb; }

    /** Hands every available submitted record to {@code handler}; returns how many it handed. */
    public int consume(Consumer<byte[]> handler) {
        long mask = rb.capacity() - 1;
        long cons = rb.consumerPos();
        int n = 0;
        while (true) {
            long prod = rb.producerPos(); // acquire
            if (cons >= prod) break;
            long hdr = rb.dataAddress() + (cons & mask);
            int len = NativeMemory.getIntVolatile(hdr); // acquire, pairs with the producer's xchg
            if ((len & RingBufMap.BUSY_BIT) != 0) break;
            long size = len & ~(RingBufMap.BUSY_BIT | RingBufMap.DISCARD_BIT) & 0xffffffffL;
            long total = BpfMap.roundUp8(size + RingBufMap.HDR_SZ);
            if (total > rb.capacity() || total > prod - cons) {
                throw new IllegalStateException(rb.describe() + ": corrupt record header 0x" + Integer.toHexString(len)
                        + " at position " + cons);
            }
            if ((len & RingBufMap.DISCARD_BIT) == 0) {
                handler.accept(readWrapped((cons + RingBufMap.HDR_SZ) & mask, (int) size));
                n++;
            }
            cons += total;
            NativeMemory.getAndSetLong(rb.consumerPosAddress(), cons); // release: frees the space for producers
        }
        return n;
    }

    /**
     * Like {@link #consume}, but waits up to {@code timeout} for a record when nothing is available: woken by
     * Java producers as the kernel wakes its consumers, and looking again every millisecond for records the
     * JIT's native {@code bpf_ringbuf_output} commits (native code cannot notify a Java monitor).
     */
    public int poll(Consumer<byte[]> handler, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int n = consume(handler);
            if (n > 0) return n;
            long left = deadline - System.nanoTime();
            if (left <= 0) return 0;
            synchronized (rb.signal) {
                // at most 1 ms at a time: the JIT's native producers commit without notifying the monitor
                if (!hasRecord() && rb.isOpen()) rb.signal.wait(Math.max(1, Math.min(left / 1_000_000, MAX_WAIT_MS)));
            }
            if (!rb.isOpen()) return 0;
        }
    }

    /** All records available now. */
    public List<byte[]> drain() {
        List<byte[]> out = new ArrayList<>();
        consume(out::add);
        return out;
    }

    private boolean hasRecord() {
        long cons = rb.consumerPos();
        if (cons >= rb.producerPos()) return false;
        int len = NativeMemory.getIntVolatile(rb.dataAddress() + (cons & (rb.capacity() - 1)));
        return (len & RingBufMap.BUSY_BIT) == 0;
    }

    private byte[] readWrapped(long off, int size) {
        byte[] out = new byte[size];
        long cap = rb.capacity();
        int first = (int) Math.min(size, cap - off);
        NativeMemory.read(rb.dataAddress() + off, out, 0, first);
        if (first < size) NativeMemory.read(rb.dataAddress(), out, first, size - first);
        return out;
    }
}
