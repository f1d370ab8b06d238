package dev.bpf4j.runtime;

/**
 * What a helper computes, stated as native calls a JIT can make itself instead of calling the
 * helper's Java body through an upcall (≈130 ns). Set only where the Java body computes exactly
 * this (the standard time and CPU helpers); a JIT that does not know a form calls the body.
 */
public sealed interface NativeForm {
    /** {@code tv_sec * 10^9 + tv_nsec} of libc's {@code int clock_gettime(clockid_t, struct timespec *)} at {@code clockGettime}. */
    record ClockNs(long clockGettime, int clockId) implements NativeForm {
        public ClockNs {
            if (clockGettime == 0) throw new IllegalArgumentException("clock_gettime at address 0");
        }
    }

    /** libc's {@code int sched_getcpu(void)} at {@code schedGetcpu} when it answers below {@code cpus} (u32 compare), else 0. */
    record CurrentCpu(long schedGetcpu, int cpus) implements NativeForm {
        public CurrentCpu {
            if (schedGetcpu == 0 || cpus <= 0) throw new IllegalArgumentException("sched_getcpu at " + schedGetcpu + ", cpus " + cpus);
        }
    }
}
