package dev.bpf4j.fuzz;

import dev.bpf4j.maps.Cpus;
import jnr.ffi.LibraryLoader;

import java.util.function.Supplier;

/**
 * Runs a body with the calling thread pinned to the CPU it is on ({@code sched_setaffinity}), then gives
 * the thread its affinity back. Per-CPU maps and {@code bpf_get_smp_processor_id} then answer the same for
 * every engine's runs of one object: which CPUs a program touched is the scheduler's choice, not the
 * engine's (a program that sets its CPU's slot to 1 sums to 1 or 2 depending on a migration). Where the
 * affinity cannot be set the body runs unpinned.
 */
final class CpuPin {
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

    static <T> T onThisCpu(Supplier<T> body) {
        LibC c = Lib.C;
        long[] saved = new long[WORDS];
        if (c == null || c.sched_getaffinity(0, WORDS * 8L, saved) != 0) return body.get();
        int cpu = Cpus.current();
        long[] one = new long[WORDS];
        one[(cpu >>> 6) % WORDS] = 1L << (cpu & 63);
        if (c.sched_setaffinity(0, WORDS * 8L, one) != 0) return body.get();
        try {
            return body.get();
        } finally {
            c.sched_setaffinity(0, WORDS * 8L, saved);
        }
    }
}
