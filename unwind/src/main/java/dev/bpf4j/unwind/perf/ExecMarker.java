package dev.bpf4j.unwind.perf;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

import java.nio.file.Path;

/**
 * Maps a file read+exec, as the jitdump specification asks: {@code perf record} sees the mapping
 * as a {@code PERF_RECORD_MMAP} naming the file, which is how {@code perf inject --jit} finds the
 * dump. Nothing ever reads through the mapping.
 */
final class ExecMarker implements AutoCloseable {
    /** libc; {@code mmap} takes a {@link Pointer} first because jnr-ffi 2.2.17 garbles the 6th argument of all-integer 6-argument bindings. */
    public interface LibC {
        int open(String path, int flags);
        int close(int fd);
        Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);
        int munmap(Pointer addr, long length);
    }

    private static final class Lib {
        static final LibC C = LibraryLoader.create(LibC.class).load("c");
        static final Runtime RUNTIME = Runtime.getRuntime(C);
    }

    private static final int O_RDONLY = 0;
    private static final int PROT_READ = 1;
    private static final int PROT_EXEC = 4;
    private static final int MAP_PRIVATE = 2;
    private static final long MAP_FAILED = -1L;

    private final Pointer address;
    private final long length;
    private boolean closed;

    private ExecMarker(Pointer address, long length) {
        this.address = address;
        this.length = length;
    }

    /** Maps the first {@code length} bytes of {@code file} PROT_READ|PROT_EXEC, MAP_PRIVATE. */
    static ExecMarker map(Path file, long length) {
        LibC c = Lib.C;
        int fd = c.open(file.toString(), O_RDONLY);
        if (fd < 0) throw new IllegalStateException("cannot open " + file + " to mmap it: errno " + Lib.RUNTIME.getLastError());
        try {
            Pointer p = c.mmap(null, length, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
            if (p == null || p.address() == MAP_FAILED) {
                throw new IllegalStateException("cannot mmap " + file + " read+exec (is its file system mounted noexec?): errno "
                        + Lib.RUNTIME.getLastError());
            }
            return new ExecMarker(p, length);
        } finally {
            c.close(fd);
        }
    }

    long address() { return address.address(); }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        Lib.C.munmap(address, length);
    }
}
