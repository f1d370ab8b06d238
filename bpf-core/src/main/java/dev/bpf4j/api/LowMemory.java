package dev.bpf4j.api;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.NativeMemory;

import java.util.Arrays;

/**
 * Native memory below 4 GiB, for contexts whose UAPI layout holds packet pointers in {@code __u32}
 * fields ({@code xdp_md.data}, {@code __sk_buff.data}, ...). The kernel rewrites loads of those fields
 * into 64-bit pointer loads; bpf4j runs the program's code unchanged, so the zero-extended u32 must be
 * the real address. Allocated with {@code mmap(MAP_32BIT | MAP_PRIVATE | MAP_ANONYMOUS)} through jffi
 * ({@code invokeN6}: jnr-ffi corrupts the 6th argument of all-integer bindings, see DESIGN.md).
 * See docs/contexts-and-low-memory.md.
 */
final class LowMemory {
    private LowMemory() {}

    private static final int PROT_READ = 1, PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20, MAP_32BIT = 0x40;
    private static final long PAGE = 4096;

    private static final Invoker INVOKER;
    private static final long MMAP, MUNMAP;
    private static final CallContext CTX6, CTX2;
    private static final String UNAVAILABLE;

    static {
        Invoker inv = null;
        long mmap = 0, munmap = 0;
        CallContext c6 = null, c2 = null;
        String why = null;
        try {
            inv = Invoker.getInstance();
            mmap = Library.getDefault().getSymbolAddress("mmap");
            munmap = Library.getDefault().getSymbolAddress("munmap");
            Type[] six = new Type[6];
            Arrays.fill(six, Type.SINT64);
            c6 = CallContext.getCallContext(Type.SINT64, six, CallingConvention.DEFAULT, true);
            c2 = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, true);
            if (mmap == 0 || munmap == 0) why = "libc has no mmap/munmap symbol";
        } catch (Throwable t) {
            why = "jffi is unavailable: " + t;
        }
        INVOKER = inv;
        MMAP = mmap;
        MUNMAP = munmap;
        CTX6 = c6;
        CTX2 = c2;
        UNAVAILABLE = why;
    }

    /** A zeroed mapping of at least {@code bytes} whose every address fits in 32 bits; free with {@link #free}. */
    static long allocate(long bytes) {
        if (UNAVAILABLE != null) throw new BpfException("cannot allocate packet memory below 4 GiB: " + UNAVAILABLE);
        long len = roundUp(bytes);
        long a = INVOKER.invokeN6(CTX6, MMAP, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (a == -1 || a == 0) {
            throw new BpfException("mmap(MAP_32BIT) of " + len + " bytes failed (errno " + com.kenai.jffi.LastError.getInstance().get()
                    + "): the low 2 GiB that MAP_32BIT draws from is exhausted");
        }
        if ((a + len) >>> 32 != 0) {
            free(a, len);
            throw new BpfException("mmap(MAP_32BIT) returned 0x" + Long.toHexString(a) + ", above 4 GiB");
        }
        return a;
    }

    static void free(long address, long bytes) {
        if (address != 0) INVOKER.invokeN2(CTX2, MUNMAP, address, roundUp(bytes));
    }

    private static long roundUp(long bytes) { return (Math.max(1, bytes) + PAGE - 1) & -PAGE; }

    /** Copies {@code data} to {@code address} (a thin alias kept for readability at call sites). */
    static void write(long address, byte[] data) { NativeMemory.write(address, data, 0, data.length); }
}
