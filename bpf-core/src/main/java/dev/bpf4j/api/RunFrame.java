package dev.bpf4j.api;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;

import java.util.List;

/**
 * The memory of one {@link BpfProgram#run} call: the context r1 points to, the packet when the program
 * type has one, and how to read both back afterwards. Everything lives in one native block, below
 * 4 GiB when the context holds {@code __u32} packet pointers ({@link LowMemory}).
 */
abstract class RunFrame implements AutoCloseable {
    private final long base;
    private final long size;
    private final boolean low;
    private boolean closed;

    protected RunFrame(long size, boolean low) {
        this.size = Math.max(8, size);
        this.low = low;
        this.base = low ? LowMemory.allocate(this.size) : NativeMemory.allocate(this.size);
        if (!low) NativeMemory.setMemory(base, this.size, (byte) 0); // a fresh anonymous mapping is zero already
    }

    protected final long base() { return base; }

    /** The value of r1 at entry. */
    abstract long ctx();

    /** Regions of this run besides the maps'. */
    abstract List<MemoryRegion> regions();

    /** Where {@code LD ABS/IND} read: skb->data (0 when the type has no such packet). */
    long packetStart() { return 0; }

    /** Bytes {@code LD ABS/IND} may read (skb->len); 0 when none. */
    long packetLength() { return 0; }

    /** The xdp_buff / sk_buff state the packet helpers work on, or null when the type has no packet. */
    PacketBuffer packetBuffer() { return null; }

    /** The packet after the run, or null when the type has none. */
    byte[] dataOut() { return null; }

    /** The context as the kernel copies it back, or null when it does not. */
    byte[] ctxOut() { return null; }

    protected static void putU32(long address, long value) { NativeMemory.putInt(address, (int) value); }

    @Override public void close() {
        if (closed) return;
        closed = true;
        if (low) LowMemory.free(base, size); else NativeMemory.free(base);
    }
}
