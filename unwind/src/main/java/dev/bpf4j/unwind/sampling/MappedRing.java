package dev.bpf4j.unwind.sampling;

import com.kenai.jffi.MemoryIO;

import java.lang.invoke.VarHandle;

/**
 * The ring of one perf event, mapped {@code MAP_SHARED} read-write (so the kernel honours our
 * {@code data_tail} and never overwrites unread records): one {@code perf_event_mmap_page}, then
 * {@code 2^n} data pages. x86 keeps loads and stores in order; the fences keep the JIT from
 * moving the record reads across the head load or the tail store.
 */
final class MappedRing implements RingMemory {
    static final long PAGE_SIZE = 4096;
    private static final MemoryIO IO = MemoryIO.getInstance();

    private final long base;
    private final long dataSize;

    private MappedRing(long base, long dataSize) {
        this.base = base;
        this.dataSize = dataSize;
    }

    /** Maps {@code dataPages} data pages of event {@code fd}; errno is left for the caller when it fails. */
    static MappedRing map(int fd, int dataPages) {
        long address = PerfSys.mmapShared(fd, length(dataPages));
        return address == PerfSys.MAP_FAILED ? null : new MappedRing(address, dataPages * PAGE_SIZE);
    }

    static long length(int dataPages) { return (dataPages + 1L) * PAGE_SIZE; }

    @Override public long dataHead() {
        long head = IO.getLong(base + PerfAbi.DATA_HEAD_OFFSET);
        VarHandle.acquireFence();
        return head;
    }

    @Override public void dataTail(long tail) {
        VarHandle.releaseFence();
        IO.putLong(base + PerfAbi.DATA_TAIL_OFFSET, tail);
    }

    @Override public long dataSize() { return dataSize; }

    @Override public void copy(long offset, byte[] dst, int dstOffset, int length) {
        IO.getByteArray(base + PAGE_SIZE + offset, dst, dstOffset, length);
    }

    @Override public long getLong(long offset) { return IO.getLong(base + PAGE_SIZE + offset); }

    void unmap() { PerfSys.munmap(base, dataSize + PAGE_SIZE); }
}
