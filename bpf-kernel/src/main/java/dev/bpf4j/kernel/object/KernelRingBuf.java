package dev.bpf4j.kernel.object;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.NativeMemory;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a kernel BPF_MAP_TYPE_RINGBUF the way libbpf's {@code ring_buffer__consume} does: the
 * consumer page is mapped read-write at offset 0, the producer page and the data pages (mapped twice
 * in a row by the kernel, so a record never wraps) read-only at offset {@code page}; committed records
 * are read from the consumer position, discarded ones skipped, and the consumer position is advanced.
 * mmap(2) is libc's, called through jffi.
 */
final class KernelRingBuf {
    private KernelRingBuf() {}

    private static final int PROT_READ = 1, PROT_WRITE = 2, MAP_SHARED = 1;
    private static final int BUSY_BIT = 1 << 31, DISCARD_BIT = 1 << 30, HDR_SZ = 8;
    private static final long PAGE = 4096;
    private static final long MMAP = Library.getDefault().getSymbolAddress("mmap");
    private static final long MUNMAP = Library.getDefault().getSymbolAddress("munmap");
    private static final CallContext MMAP_CTX = CallContext.getCallContext(Type.POINTER,
            new Type[] {Type.POINTER, Type.ULONG, Type.SINT, Type.SINT, Type.SINT, Type.SLONG}, CallingConvention.DEFAULT, true);
    private static final CallContext MUNMAP_CTX = CallContext.getCallContext(Type.SLONG,
            new Type[] {Type.POINTER, Type.ULONG}, CallingConvention.DEFAULT, false);

    /** Every committed record now in the ring buffer {@code fd} of {@code size} data bytes (a power of two); consumes them. */
    static List<byte[]> drain(int fd, int size) {
        long consumer = mmap(PAGE, PROT_READ | PROT_WRITE, fd, 0);
        long producerLen = PAGE + 2L * size;
        long producer;
        try {
            producer = mmap(producerLen, PROT_READ, fd, PAGE);
        } catch (RuntimeException e) {
            munmap(consumer, PAGE);
            throw e;
        }
        try {
            List<byte[]> out = new ArrayList<>();
            long data = producer + PAGE;
            long mask = size - 1L;
            long cons = NativeMemory.getLong(consumer);
            long prod = NativeMemory.getLong(producer);
            while (cons < prod) {
                int len = NativeMemory.getIntVolatile(data + (cons & mask));
                if ((len & BUSY_BIT) != 0) break;
                int n = len & ~(BUSY_BIT | DISCARD_BIT);
                if ((len & DISCARD_BIT) == 0) out.add(NativeMemory.read(data + ((cons + HDR_SZ) & mask), n));
                cons += (n + HDR_SZ + 7) & ~7L;
            }
            NativeMemory.getAndSetLong(consumer, cons);
            return out;
        } finally {
            munmap(producer, producerLen);
            munmap(consumer, PAGE);
        }
    }

    private static long mmap(long len, int prot, int fd, long offset) {
        long p = Invoker.getInstance().invokeL6(MMAP_CTX, MMAP, 0, len, prot, MAP_SHARED, fd, offset);
        if (p == -1) throw new IllegalStateException("mmap of ring buffer fd " + fd + " failed: errno " + LastError.getInstance().get());
        return p;
    }

    private static void munmap(long addr, long len) {
        Invoker.getInstance().invokeL2(MUNMAP_CTX, MUNMAP, addr, len);
    }
}
