package dev.bpf4j.jit;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

import java.util.Arrays;

/**
 * A page mapped below 4 GiB ({@code mmap(MAP_32BIT)}, as bpf-core's LowMemory does for XDP runs), so a
 * ctx's {@code __u32 data}/{@code data_end} fields can hold real addresses in tests.
 */
final class LowBuffer implements AutoCloseable {
    static final int SIZE = 4096;
    private static final int PROT_RW = 3, MAP_PRIVATE_ANON_32BIT = 0x02 | 0x20 | 0x40;
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final long MMAP = Library.getDefault().getSymbolAddress("mmap");
    private static final long MUNMAP = Library.getDefault().getSymbolAddress("munmap");
    private static final CallContext CTX6 = CallContext.getCallContext(Type.SINT64, six(), CallingConvention.DEFAULT, true);
    private static final CallContext CTX2 = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT64, Type.SINT64},
            CallingConvention.DEFAULT, true);

    final long address;

    /**
     * Maps the page; when the low 2 GiB MAP_32BIT draws from is full (XDP runs' frames there are freed
     * by cleaners, after a GC), collects and tries again, and past three tries aborts the test as
     * skipped: without a low page it cannot run (seen once on JDK 25, 2026-12-07).
     */
    LowBuffer() {
        long a = -1;
        for (int attempt = 0; attempt < 3; attempt++) {
            a = INVOKER.invokeN6(CTX6, MMAP, 0, SIZE, PROT_RW, MAP_PRIVATE_ANON_32BIT, -1, 0);
            if (a != -1) break;
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (a == -1) throw new org.opentest4j.TestAbortedException("mmap(MAP_32BIT) failed three times: the low 2 GiB is full in this JVM");
        if (a == 0 || (a + SIZE) >>> 32 != 0) throw new IllegalStateException("mmap(MAP_32BIT) gave 0x" + Long.toHexString(a));
        address = a;
    }

    private static Type[] six() {
        Type[] t = new Type[6];
        Arrays.fill(t, Type.SINT64);
        return t;
    }

    @Override public void close() { INVOKER.invokeN2(CTX2, MUNMAP, address, SIZE); }
}
