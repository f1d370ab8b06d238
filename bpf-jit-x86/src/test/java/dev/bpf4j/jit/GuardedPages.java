package dev.bpf4j.jit;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

import java.util.Arrays;

/**
 * Pages for fault-free reads: {@link #readable} (read-write), then {@link #protNone} (mapped
 * {@code PROT_NONE}), and {@link #unmapped}, the page at x86-64's {@code TASK_SIZE_MAX}
 * ({@code 2^47 - 4096}), past the last address a mapping can cover. (A page unmapped by the test would not do: the
 * JVM's other threads map memory meanwhile and may take it, which a full test run did.)
 */
final class GuardedPages implements AutoCloseable {
    static final int PAGE = 4096;
    private static final int PROT_NONE = 0, PROT_RW = 3, MAP_PRIVATE_ANON = 0x02 | 0x20;
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final long MMAP = Library.getDefault().getSymbolAddress("mmap");
    private static final long MPROTECT = Library.getDefault().getSymbolAddress("mprotect");
    private static final long MUNMAP = Library.getDefault().getSymbolAddress("munmap");
    private static final CallContext L6 = CallContext.getCallContext(Type.SINT64, longs(6), CallingConvention.DEFAULT, true);
    private static final CallContext I3 = CallContext.getCallContext(Type.SINT, longs(3), CallingConvention.DEFAULT, true);

    final long readable, protNone, unmapped;

    GuardedPages() {
        long a = INVOKER.invokeN6(L6, MMAP, 0, 2L * PAGE, PROT_RW, MAP_PRIVATE_ANON, -1, 0);
        if (a == -1 || a == 0) throw new IllegalStateException("mmap failed");
        readable = a;
        protNone = a + PAGE;
        unmapped = (1L << 47) - PAGE;
        if (INVOKER.invokeN3(I3, MPROTECT, protNone, PAGE, PROT_NONE) != 0) throw new IllegalStateException("mprotect failed");
    }

    private static Type[] longs(int n) {
        Type[] t = new Type[n];
        Arrays.fill(t, Type.SINT64);
        return t;
    }

    @Override public void close() { INVOKER.invokeN3(I3, MUNMAP, readable, 2L * PAGE, 0); }
}
