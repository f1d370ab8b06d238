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
    private static final int MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20, MAP_32BIT = 0x40, MAP_FIXED_NOREPLACE = 0x100000;
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

    /**
     * A zeroed mapping of at least {@code bytes} whose every address fits in 32 bits; free with {@link #free}.
     * MAP_32BIT draws from one window, [1 GiB, 2 GiB) on x86-64, which a JDK 25's class space
     * shares (it is reserved at 0x66000000 here): when the window is full, a free range anywhere
     * below 4 GiB is asked for by address ({@link LowGaps}).
     */
    static long allocate(long bytes) {
        if (UNAVAILABLE != null) throw new BpfException("cannot allocate packet memory below 4 GiB: " + UNAVAILABLE);
        long len = roundUp(bytes);
        long a = mmap(0, len, MAP_32BIT);
        if (a != -1 && a != 0 && (a + len) >>> 32 == 0) return a;
        if (a != -1 && a != 0) free(a, len);
        a = inGap(len);
        if (a != 0) return a;
        throw new BpfException("cannot map " + len + " bytes below 4 GiB: the MAP_32BIT window and every gap below 4 GiB are full (errno "
                + com.kenai.jffi.LastError.getInstance().get() + ")");
    }

    /** A zeroed mapping of {@code len} (page multiple) bytes in a free range below 4 GiB, asked for by address; 0 when none is free. */
    static long inGap(long len) {
        long a;
        for (int attempt = 0; attempt < 3; attempt++) {     // another thread may map the gap first
            long hint = LowGaps.find(len);
            if (hint == 0) break;
            a = mmap(hint, len, MAP_FIXED_NOREPLACE);
            if (a == hint) return a;
            if (a != -1 && a != 0) free(a, len);            // a kernel before 4.17 took the flag for a hint and went elsewhere
        }
        return 0;
    }

    private static long mmap(long at, long len, int flag) {
        return INVOKER.invokeN6(CTX6, MMAP, at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flag, -1, 0);
    }

    static void free(long address, long bytes) {
        if (address != 0) INVOKER.invokeN2(CTX2, MUNMAP, address, roundUp(bytes));
    }

    private static long roundUp(long bytes) { return (Math.max(1, bytes) + PAGE - 1) & -PAGE; }

    /** Copies {@code data} to {@code address} (a thin alias kept for readability at call sites). */
    static void write(long address, byte[] data) { NativeMemory.write(address, data, 0, data.length); }
}
