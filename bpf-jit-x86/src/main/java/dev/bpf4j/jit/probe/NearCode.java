package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import dev.bpf4j.unwind.ProcMaps;

import java.util.Comparator;
import java.util.List;

/**
 * Code pages within reach of a {@code call rel32} from a given address: mapped with
 * {@code MAP_FIXED_NOREPLACE} into a free gap of {@code /proc/self/maps} at most ±2 GiB away,
 * written while read-write, then made read-execute (never both). mmap is called through jffi's
 * {@code invokeN6}: jnr-ffi corrupts the sixth argument of all-integer six-argument calls.
 */
final class NearCode implements AutoCloseable {
    private static final long PAGE = 4096;
    /** What a rel32 reaches, less a margin for the code's own size. */
    private static final long REACH = (1L << 31) - (1L << 20);
    private static final int PROT_READ = 1, PROT_WRITE = 2, PROT_EXEC = 4;
    private static final int MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20, MAP_FIXED_NOREPLACE = 0x100000;

    private static final class Libc {
        static final Library LIB = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.GLOBAL);
        static final long MMAP = symbol("mmap"), MPROTECT = symbol("mprotect"), MUNMAP = symbol("munmap");
        static final CallContext MMAP_CC = CallContext.getCallContext(Type.POINTER,
                new Type[]{Type.POINTER, Type.UINT64, Type.SINT32, Type.SINT32, Type.SINT32, Type.SINT64}, CallingConvention.DEFAULT, false);
        static final CallContext MPROTECT_CC = CallContext.getCallContext(Type.SINT32,
                new Type[]{Type.POINTER, Type.UINT64, Type.SINT32}, CallingConvention.DEFAULT, false);
        static final CallContext MUNMAP_CC = CallContext.getCallContext(Type.SINT32,
                new Type[]{Type.POINTER, Type.UINT64}, CallingConvention.DEFAULT, false);

        private static long symbol(String name) {
            if (LIB == null) throw new IllegalStateException("cannot open libc.so.6: " + Library.getLastError());
            long a = LIB.getSymbolAddress(name);
            if (a == 0) throw new IllegalStateException("libc has no " + name);
            return a;
        }
    }

    private final long address;
    private final long length;
    private final int size;
    private boolean closed;

    private NearCode(long address, long length, int size) {
        this.address = address;
        this.length = length;
        this.size = size;
    }

    /** Maps pages near {@code near}, lets {@code code} be generated for their address, and makes them read-execute. */
    static NearCode map(long near, int maxSize, java.util.function.LongFunction<byte[]> code) {
        long length = (maxSize + PAGE - 1) / PAGE * PAGE;
        long at = mapNear(near, length);
        byte[] bytes;
        try {
            bytes = code.apply(at);
            if (bytes.length > length) throw new IllegalStateException("trampoline of " + bytes.length + " bytes does not fit " + length);
            MemoryIO.getInstance().putByteArray(at, bytes, 0, bytes.length);
            protect(at, length, PROT_READ | PROT_EXEC);
        } catch (RuntimeException | Error e) {
            unmap(at, length);
            throw e;
        }
        return new NearCode(at, length, bytes.length);
    }

    long address() { return address; }

    int size() { return size; }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        unmap(address, length);
    }

    /** True when a rel32 at {@code from} reaches {@code to} (both ends of the code included). */
    static boolean reaches(long from, long to, long length) {
        return Math.abs(to - from) < REACH - length;
    }

    private static long mapNear(long near, long length) {
        List<ProcMaps.Mapping> maps = ProcMaps.read();
        maps.sort(Comparator.comparingLong(m -> Math.abs(m.start() - near)));
        // Candidate gaps: just below and just above every mapping, nearest first.
        for (ProcMaps.Mapping m : maps) {
            for (long candidate : new long[]{m.end(), m.start() - length}) {
                if (candidate <= 0 || candidate % PAGE != 0 || !reaches(near, candidate, length)) continue;
                if (overlaps(maps, candidate, length)) continue;
                long got = Invoker.getInstance().invokeN6(Libc.MMAP_CC, Libc.MMAP, candidate, length,
                        PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
                if (got == candidate) return got;
                if (got != -1 && got != 0) unmap(got, length); // an old kernel took it as a mere hint
            }
        }
        throw new IllegalStateException(String.format("no free gap of %d bytes within ±2 GiB of 0x%x for a trampoline", length, near));
    }

    private static boolean overlaps(List<ProcMaps.Mapping> maps, long start, long length) {
        for (ProcMaps.Mapping m : maps) {
            if (Long.compareUnsigned(start, m.end()) < 0 && Long.compareUnsigned(m.start(), start + length) < 0) return true;
        }
        return false;
    }

    private static void protect(long at, long length, int prot) {
        int rc = (int) Invoker.getInstance().invokeN3(Libc.MPROTECT_CC, Libc.MPROTECT, at, length, prot);
        if (rc != 0) throw new IllegalStateException(String.format("mprotect(0x%x, %d, %d) failed", at, length, prot));
    }

    private static void unmap(long at, long length) {
        Invoker.getInstance().invokeN2(Libc.MUNMAP_CC, Libc.MUNMAP, at, length);
    }
}
