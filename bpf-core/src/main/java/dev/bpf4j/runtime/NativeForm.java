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

    /**
     * {@code getpid() << 32 | (u32) syscall(SYS_gettid)} of the calling thread, cached per thread in
     * the thread-specific slot {@code key} (created with {@code free} as its destructor): native code
     * reads the slot with {@code pthread_getspecific}, and on a thread's first call computes the
     * value and keeps it in 8 bytes from {@code malloc} set with {@code pthread_setspecific}.
     */
    record PidTgid(long getspecific, long setspecific, int key, long getpid, long syscall, long malloc) implements NativeForm {
        public PidTgid {
            if (getspecific == 0 || setspecific == 0 || getpid == 0 || syscall == 0 || malloc == 0) {
                throw new IllegalArgumentException("a libc function at address 0");
            }
        }
    }
}
