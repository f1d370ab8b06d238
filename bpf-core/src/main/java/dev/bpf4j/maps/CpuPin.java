package dev.bpf4j.maps;

import jnr.ffi.LibraryLoader;

import java.util.function.Supplier;

/**
 * Pins threads to one CPU ({@code sched_setaffinity}). Linux runs a test run with migration disabled,
 * so a program's per-CPU map accesses all land in one CPU's slot; bpf4j asks for the CPU at each
 * access, and a JVM thread that migrates in the middle of a run would split its updates over two
 * slots. So a test run of a program that can tell CPUs apart runs pinned ({@link #onThisCpu}, from
 * {@code BpfProgram.run}), as does an object's differential run in the fuzzer; fuzz campaign workers
 * pin themselves ({@link #pin}) so that a campaign is replayable. Where the affinity cannot be set,
 * nothing is pinned.
 */
public final class CpuPin {
    private CpuPin() {}

    public interface LibC {
        int sched_setaffinity(int pid, long cpusetsize, long[] mask);
        int sched_getaffinity(int pid, long cpusetsize, long[] mask);
    }

    /** 1024 CPUs, glibc's cpu_set_t. */
    private static final int WORDS = 16;

    private static final class Lib {
        static final LibC C = load();

        private static LibC load() {
            try {
                return LibraryLoader.create(LibC.class).load("c");
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }
    }

    private static long[] only(int cpu) {
        long[] one = new long[WORDS];
        int c = Math.floorMod(cpu, Math.max(1, Math.min(Cpus.possible(), WORDS * 64)));
        one[c >>> 6] = 1L << (c & 63);
        return one;
    }

    /** Pins the calling thread to CPU {@code cpu % possible}; false when that is not possible here. */
    public static boolean pin(int cpu) {
        LibC c = Lib.C;
        return c != null && c.sched_setaffinity(0, WORDS * 8L, only(cpu)) == 0;
    }

    /** How many CPUs the calling thread may run on now; -1 when the affinity cannot be read here. */
    public static int allowedCount() {
        LibC c = Lib.C;
        long[] mask = new long[WORDS];
        if (c == null || c.sched_getaffinity(0, WORDS * 8L, mask) != 0) return -1;
        int n = 0;
        for (long w : mask) n += Long.bitCount(w);
        return n;
    }

    /** Runs {@code body} pinned to the CPU the thread is on, then gives the thread its affinity back. */
    public static <T> T onThisCpu(Supplier<T> body) {
        LibC c = Lib.C;
        long[] saved = new long[WORDS];
        if (c == null || c.sched_getaffinity(0, WORDS * 8L, saved) != 0) return body.get();
        if (c.sched_setaffinity(0, WORDS * 8L, only(Cpus.current())) != 0) return body.get();
        try {
            return body.get();
        } finally {
            c.sched_setaffinity(0, WORDS * 8L, saved);
        }
    }
}
