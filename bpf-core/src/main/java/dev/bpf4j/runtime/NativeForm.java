package dev.bpf4j.runtime;

/**
 * What a helper computes, stated as native calls a JIT can make itself instead of calling the
 * helper's Java body through an upcall (≈95 ns). Set only where the Java body computes exactly
 * this (the standard time, CPU and pid helpers), or for {@code bpf_get_prandom_u32} draws the same way
 * from a seed of its own; a JIT that does not know a form calls the body.
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
     * Eight bytes of the calling thread's own, in the thread-specific slot {@code key} (created with
     * {@code free} as its destructor): native code finds them with {@code pthread_getspecific}, and on
     * a thread's first call takes them from {@code malloc} and sets them with {@code pthread_setspecific}.
     */
    record ThreadSlot(long getspecific, long setspecific, int key, long malloc) {
        public ThreadSlot {
            if (getspecific == 0 || setspecific == 0 || malloc == 0) throw new IllegalArgumentException("a libc function at address 0");
        }
    }

    /**
     * {@code getpid() << 32 | (u32) syscall(SYS_gettid)} of the calling thread, computed on its first
     * call and kept in its {@code slot}.
     */
    record PidTgid(ThreadSlot slot, long getpid, long syscall) implements NativeForm {
        public PidTgid {
            if (slot == null || getpid == 0 || syscall == 0) throw new IllegalArgumentException("a libc function at address 0");
        }
    }

    /**
     * A pseudo-random u32 from the generator of {@code ThreadLocalRandom.nextInt}, which the Java body
     * calls: the thread's 64-bit seed (in its {@code slot}) moves on by {@link #GAMMA} (JDK 17's also
     * adds twice the thread id) and is mixed ({@link #mix32}). A thread's first call seeds it from
     * {@code syscall(SYS_getrandom)}, or from its stack address should that fail.
     */
    record PrandomU32(ThreadSlot slot, long syscall) implements NativeForm {
        /** The Weyl increment of the seed (odd: every seed comes round once in 2^64 draws). */
        public static final long GAMMA = 0x9e3779b97f4a7c15L;

        public PrandomU32 {
            if (slot == null || syscall == 0) throw new IllegalArgumentException("a libc function at address 0");
        }

        /** The u32 drawn from {@code seed} (MurmurHash3's 64-bit finalizer, as ThreadLocalRandom.mix32). */
        public static long mix32(long seed) {
            long z = (seed ^ (seed >>> 33)) * 0xff51afd7ed558ccdL;
            return ((z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L) >>> 32;
        }
    }

    /**
     * {@code bpf_probe_read}, {@code _user} ({@code kernel} false) or {@code _kernel} as native code, for
     * the call sites where the helper's checks are known to pass: a destination inside the calling
     * function's frame that does not overlap the source. There the body ({@code ProbeMemory} in
     * {@code PROCESS} mode) copies {@code size} bytes through {@code process_vm_readv(pid, ...)} (or directly,
     * with the same bytes, for a source the run may access), answers 0, or zero-fills dst and answers
     * {@code -EFAULT}; a {@code _kernel} read of a source below {@link #MMAP_MIN_ADDR} or at a non-canonical
     * address is {@code -ERANGE}, dst zero-filled, checked first. Every other call site calls the body.
     */
    record ProbeRead(boolean kernel, int pid) implements NativeForm {
        /** Linux's default {@code vm.mmap_min_addr}, below which a {@code _kernel} read is {@code -ERANGE}. */
        public static final long MMAP_MIN_ADDR = 0x10000;

        public ProbeRead {
            if (pid <= 0) throw new IllegalArgumentException("pid " + pid);
        }
    }

    /**
     * {@code bpf_probe_read_str}, {@code _user_str} ({@code kernel} false) or {@code _kernel_str} as native code,
     * for the same call sites as {@link ProbeRead} (dst in the calling function's frame, not overlapping
     * {@code size} bytes of the source). There the body ({@code ProbeMemory.readStr} in {@code PROCESS} mode)
     * copies bytes up to and including the first NUL, at most {@code size}: a source whose {@code size} bytes
     * the run may access directly, any other page by page through {@code process_vm_readv(pid, ...)} (so a
     * string that ends before an unreadable page is read); it answers the length with the NUL, or {@code size}
     * with dst's last byte made NUL when none came, 0 for size 0 (dst untouched), or {@code -EFAULT} with dst
     * zero-filled when a page before the NUL is unreadable. Bytes of dst after the NUL keep their values. A
     * {@code _kernel_str} read of size above 0 from a source below {@link ProbeRead#MMAP_MIN_ADDR} or at a
     * non-canonical address is {@code -ERANGE}, dst zero-filled.
     */
    record ProbeReadStr(boolean kernel, int pid) implements NativeForm {
        public ProbeReadStr {
            if (pid <= 0) throw new IllegalArgumentException("pid " + pid);
        }
    }

    /**
     * {@code bpf_ringbuf_output} as native code, for the call sites where r1 is a constant handle that
     * {@code rings} resolves to a ring buffer's block and the data lies in the caller's frame (every other
     * call site calls the body). The block is {@code RingBufMap}'s, in the kernel's layout: consumer
     * position at {@link #CONSUMER_POS}, producer position at {@link #PRODUCER_POS}, the producers' spin
     * lock (a u32, 0 free, 1 taken: Java producers take the same word) at {@link #PRODUCER_LOCK}, the data
     * mask ({@code max_entries - 1}) at {@link #MASK}, data from {@link #DATA}, followed by a copy-area of
     * the same size for records that cross the end, then the reservation table (a u32 per 8 data bytes,
     * {@code size | BUSY} while the record starting there is reserved: what commit believes, not the header). The native code does what the body does:
     * {@code -EINVAL} for unknown flags, {@code -EAGAIN} when the record does not fit, else reserve under
     * the lock (header {@code size | BPF_RINGBUF_BUSY_BIT}, {@code pg_off}), copy, commit by clearing BUSY
     * with an exchange, and 0. It wakes no Java consumer: a consumer waiting in {@code poll} looks again
     * at least every millisecond.
     */
    record RingBufOutput(java.util.function.LongFunction<RingBlock> rings) implements NativeForm {
        public static final int CONSUMER_POS = 0, PRODUCER_POS = 4096, PRODUCER_LOCK = 4096 + 64, MASK = 4096 + 128, DATA = 8192;

        public RingBufOutput {
            java.util.Objects.requireNonNull(rings);
        }

        /** The block of a ring buffer at {@code base} with {@code capacity} data bytes; usable while the word at {@code openWord} is non-zero. */
        public record RingBlock(long base, long openWord, long capacity) {
            public RingBlock {
                if (base == 0 || openWord == 0 || capacity <= 0) {
                    throw new IllegalArgumentException("ring block at " + base + ", open word " + openWord + ", capacity " + capacity);
                }
            }

            /** Where the data area starts. */
            public long data() { return base + DATA; }
        }

        /** One function serves every ring (it takes the block in r1): equal for code caching whatever {@code rings}. */
        @Override public boolean equals(Object o) { return o instanceof RingBufOutput; }
        @Override public int hashCode() { return RingBufOutput.class.hashCode(); }
    }

    /**
     * {@code bpf_ringbuf_reserve} as native code, for the call sites where r1 is a constant handle that
     * {@code rings} resolves to an open ring's block ({@link RingBufOutput} has the layout): r1 replaced by
     * the block, {@code void *f(void *ring, u64 size, u64 flags)} answers what the body answers, NULL for
     * flags other than 0, a size over {@code RINGBUF_MAX_RECORD_SZ} or no room, else the sample after a
     * header {@code size | BPF_RINGBUF_BUSY_BIT, pg_off} written under the producers' lock.
     */
    record RingBufReserve(java.util.function.LongFunction<RingBufOutput.RingBlock> rings) implements NativeForm {
        public RingBufReserve {
            java.util.Objects.requireNonNull(rings);
        }

        @Override public boolean equals(Object o) { return o instanceof RingBufReserve; }
        @Override public int hashCode() { return RingBufReserve.class.hashCode(); }
    }

    /**
     * {@code bpf_ringbuf_submit} ({@code discard} false) or {@code _discard} as native code: {@code u64 f(void
     * *sample, u64 flags, void *ring)}, the call site putting in r3 the block of the ring among {@code rings}
     * (the load's open rings) whose data area holds the sample's header. It commits and answers 0 when the
     * reservation table says the sample is pending (claiming its entry, then writing the header from it, as
     * {@code RingBufMap.commit}: the header is the program's to scribble on); otherwise it answers 1 with r1
     * and r2 untouched and the call site calls the body, which refuses the pointer. Flags are not checked
     * (the kernel's are not); no Java consumer is woken (it looks again every millisecond).
     */
    record RingBufCommit(boolean discard, java.util.function.Supplier<java.util.List<RingBufOutput.RingBlock>> rings) implements NativeForm {
        public RingBufCommit {
            java.util.Objects.requireNonNull(rings);
        }

        @Override public boolean equals(Object o) { return o instanceof RingBufCommit c && c.discard == discard; }
        @Override public int hashCode() { return Boolean.hashCode(discard) + 31 * RingBufCommit.class.hashCode(); }
    }

    /**
     * {@code bpf_ringbuf_query} as native code where r1 is a constant open ring (replaced by its block):
     * {@code u64 f(void *ring, u64 flags)}, the body's loads ({@code BPF_RB_AVAIL_DATA} = producer minus
     * consumer position, {@code _RING_SIZE}, {@code _CONS_POS}, {@code _PROD_POS}, 0 for other flags).
     */
    record RingBufQuery(java.util.function.LongFunction<RingBufOutput.RingBlock> rings) implements NativeForm {
        public RingBufQuery {
            java.util.Objects.requireNonNull(rings);
        }

        @Override public boolean equals(Object o) { return o instanceof RingBufQuery; }
        @Override public int hashCode() { return RingBufQuery.class.hashCode(); }
    }
}
