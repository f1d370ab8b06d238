package dev.bpf4j.unwind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The process's mappings from {@code /proc/self/maps}: bounds for memory views, permission checks. */
public final class ProcMaps {
    private ProcMaps() {}

    /** One line of /proc/self/maps: {@code offset} is the file offset mapped at {@code start}; {@code inode} 0 means anonymous. */
    public record Mapping(long start, long end, String perms, long offset, String dev, long inode, String path) {
        public Mapping(long start, long end, String perms, String path) { this(start, end, perms, 0, "00:00", 0, path); }

        /** Backed by a file (a path and an inode), not anonymous memory or a pseudo-mapping like {@code [vdso]}. */
        public boolean fileBacked() { return inode != 0 && path.startsWith("/"); }

        /** The file was unlinked after it was mapped; {@link #path()} then ends in " (deleted)". */
        public boolean deleted() { return path.endsWith(" (deleted)"); }

        public boolean contains(long address) {
            return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
        }

        public boolean readable() { return perms.charAt(0) == 'r'; }
        public boolean writable() { return perms.charAt(1) == 'w'; }
        public boolean executable() { return perms.charAt(2) == 'x'; }
    }

    public static List<Mapping> read() { return read(Path.of("/proc/self/maps")); }

    /** The mappings of process {@code pid} ({@code /proc/PID/maps}: root, or the same user and ptrace rights). */
    public static List<Mapping> read(int pid) { return read(Path.of("/proc/" + pid + "/maps")); }

    /** The mappings listed in {@code file}, in the format of /proc/PID/maps (a saved copy, for instance). */
    public static List<Mapping> read(Path file) {
        try {
            List<Mapping> out = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                String[] f = line.trim().split("\\s+", 6);
                String[] range = f[0].split("-");
                out.add(new Mapping(Long.parseUnsignedLong(range[0], 16), Long.parseUnsignedLong(range[1], 16), f[1],
                        Long.parseUnsignedLong(f[2], 16), f[3], Long.parseLong(f[4]), f.length > 5 ? f[5] : ""));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    public static Optional<Mapping> containing(long address) {
        return read().stream().filter(m -> m.contains(address)).findFirst();
    }

    /**
     * A view of the stack that holds {@code sp}: from {@code sp} up to the end of its mapping, so an
     * unwinder never reads past the top of the thread's stack.
     */
    public static Optional<MemoryView> stackViewFrom(long sp) {
        return containing(sp).filter(Mapping::readable).map(m -> new LiveMemoryView(sp, m.end()));
    }
}
