package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;

import java.util.function.Consumer;

/**
 * Clocks and random numbers that answer the same on every engine: each load gets its own virtual clock,
 * starting at one second and advancing one microsecond per call (ktime, boot, coarse and TAI clocks and
 * jiffies all read it), and its own xorshift sequence for {@code bpf_get_prandom_u32}. A mutated object that
 * stores the time in a map (one did: two instructions swapped) then compares like any other; with the real
 * clocks it differed every time, on every engine pair.
 */
final class SteadyHelpers {
    private SteadyHelpers() {}

    static final long START_NS = 1_000_000_000L, STEP_NS = 1_000;

    /** Registers fresh clocks and a fresh random sequence into each registry it is given (one per object load). */
    static Consumer<HelperRegistry.Builder> forEachLoad() {
        return b -> {
            long[] clock = {START_NS};
            long[] random = {0x9e3779b97f4a7c15L};
            b.add(HelperIds.KTIME_GET_NS, "bpf_ktime_get_ns", (c, r1, r2, r3, r4, r5) -> tick(clock));
            b.add(HelperIds.KTIME_GET_BOOT_NS, "bpf_ktime_get_boot_ns", (c, r1, r2, r3, r4, r5) -> tick(clock));
            b.add(HelperIds.KTIME_GET_COARSE_NS, "bpf_ktime_get_coarse_ns", (c, r1, r2, r3, r4, r5) -> tick(clock));
            b.add(HelperIds.KTIME_GET_TAI_NS, "bpf_ktime_get_tai_ns", (c, r1, r2, r3, r4, r5) -> tick(clock) + 37_000_000_000L);
            b.add(HelperIds.JIFFIES64, "bpf_jiffies64", (c, r1, r2, r3, r4, r5) -> (1L << 32) - 75_000 + tick(clock) / 4_000_000);
            b.add(HelperIds.GET_PRANDOM_U32, "bpf_get_prandom_u32", (c, r1, r2, r3, r4, r5) -> {
                synchronized (random) {
                    long x = random[0];
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    random[0] = x;
                    return x & 0xffffffffL;
                }
            });
        };
    }

    private static long tick(long[] clock) {
        synchronized (clock) {
            return clock[0] += STEP_NS;
        }
    }
}
