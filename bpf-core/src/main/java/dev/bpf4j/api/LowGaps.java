package dev.bpf4j.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Free address ranges below 4 GiB, from {@code /proc/self/maps}: where {@link LowMemory} asks for a
 * mapping when the MAP_32BIT window is full.
 */
final class LowGaps {
    private LowGaps() {}

    /** Linux's default {@code vm.mmap_min_addr} is 64 KiB; leave the first 16 MiB alone (null-ish pointers stay unmapped). */
    static final long FLOOR = 16L << 20;
    /** One page under 4 GiB: a packet's end pointer, one past its last byte, must fit in 32 bits too. */
    static final long CEILING = (1L << 32) - 4096;

    /** The start of the highest free range of {@code len} bytes in [FLOOR, 4 GiB), page aligned, or 0 when there is none. */
    static long find(long len) {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            return 0;
        }
        return find(lines, len);
    }

    /** As {@link #find(long)} over the given maps lines (sorted by address, as the kernel writes them). */
    static long find(List<String> maps, long len) {
        long best = 0, prevEnd = FLOOR;
        for (String line : maps) {
            int dash = line.indexOf('-'), space = line.indexOf(' ');
            if (dash < 0 || space < dash) continue;
            long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
            long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(start, CEILING) >= 0) return fit(prevEnd, CEILING, len, best);
            best = fit(prevEnd, start, len, best);
            prevEnd = Math.max(prevEnd, end);
        }
        return fit(prevEnd, CEILING, len, best);
    }

    /** The top of the gap [from, to) when {@code len} fits, else {@code best}. */
    private static long fit(long from, long to, long len, long best) {
        if (to - from < len) return best;
        return Math.max(best, to - len);
    }
}
