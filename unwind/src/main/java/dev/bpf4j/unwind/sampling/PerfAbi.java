package dev.bpf4j.unwind.sampling;

/**
 * The numbers of the perf_event_open ABI that the sampler uses (include/uapi/linux/perf_event.h,
 * arch/x86/include/uapi/asm/perf_regs.h; x86-64, little-endian).
 */
public final class PerfAbi {
    private PerfAbi() {}

    public static final long SYS_PERF_EVENT_OPEN = 298;
    public static final long SYS_GETTID = 186;
    public static final long PERF_FLAG_FD_CLOEXEC = 1L << 3;
    public static final long PERF_EVENT_IOC_ENABLE = 0x2400;
    public static final long PERF_EVENT_IOC_DISABLE = 0x2401;
    /** _IOW('$', 8, __u32): runs a BPF_PROG_TYPE_PERF_EVENT program (its fd) on each sample in the kernel. */
    public static final long PERF_EVENT_IOC_SET_BPF = 0x40042408;

    /** sizeof(struct perf_event_attr), PERF_ATTR_SIZE_VER8. */
    public static final int ATTR_SIZE = 136;

    public static final int PERF_TYPE_SOFTWARE = 1;
    public static final long PERF_COUNT_SW_CPU_CLOCK = 0;
    public static final long PERF_COUNT_SW_TASK_CLOCK = 1;

    // attr.sample_type
    public static final long PERF_SAMPLE_IP = 1L << 0;
    public static final long PERF_SAMPLE_TID = 1L << 1;
    public static final long PERF_SAMPLE_TIME = 1L << 2;
    public static final long PERF_SAMPLE_CALLCHAIN = 1L << 5;
    public static final long PERF_SAMPLE_CPU = 1L << 7;
    public static final long PERF_SAMPLE_PERIOD = 1L << 8;
    public static final long PERF_SAMPLE_REGS_USER = 1L << 12;
    public static final long PERF_SAMPLE_STACK_USER = 1L << 13;

    // attr flag bits (the bitfield word at offset 40)
    public static final long FLAG_DISABLED = 1L << 0;
    public static final long FLAG_INHERIT = 1L << 1;
    public static final long FLAG_EXCLUDE_KERNEL = 1L << 5;
    public static final long FLAG_EXCLUDE_HV = 1L << 6;
    public static final long FLAG_COMM = 1L << 9;
    public static final long FLAG_FREQ = 1L << 10;
    /** attr.task: PERF_RECORD_FORK and _EXIT of the sampled task go to its ring. */
    public static final long FLAG_TASK = 1L << 13;
    public static final long FLAG_SAMPLE_ID_ALL = 1L << 18;
    public static final long FLAG_EXCLUDE_CALLCHAIN_KERNEL = 1L << 21;
    public static final long FLAG_COMM_EXEC = 1L << 24;
    public static final long FLAG_USE_CLOCKID = 1L << 25;

    /** CLOCK_MONOTONIC: sample times on the clock of {@link System#nanoTime()}. */
    public static final int CLOCK_MONOTONIC = 1;

    // perf_regs.h: PERF_REG_X86_BP, _SP, _IP; regs are dumped in increasing bit order.
    public static final int PERF_REG_X86_BP = 6;
    public static final int PERF_REG_X86_SP = 7;
    public static final int PERF_REG_X86_IP = 8;
    /** BP, SP, IP: the three registers a frame walk starts from (mask 0x1c0). */
    public static final long REGS_BP_SP_IP = (1L << PERF_REG_X86_BP) | (1L << PERF_REG_X86_SP) | (1L << PERF_REG_X86_IP);
    /**
     * Every user register of a 64-bit task: AX..SS (bits 0-11) and R8..R15 (16-23). DS, ES, FS, GS
     * (12-15) are refused with EINVAL on x86-64 (perf_reg_validate). What a perf_event program's
     * {@code pt_regs} is filled from.
     */
    public static final long REGS_ALL_X86_64 = 0xfffL | (0xffL << 16);
    /** Register slots of perf_regs.h (PERF_REG_X86_64_MAX). */
    public static final int PERF_REG_X86_64_MAX = 24;
    public static final long PERF_SAMPLE_REGS_ABI_NONE = 0;

    // struct perf_event_header.type
    public static final int PERF_RECORD_LOST = 2;
    public static final int PERF_RECORD_COMM = 3;
    public static final int PERF_RECORD_EXIT = 4;
    /** A task created a new one: in the creating task's ring, with attr.task. */
    public static final int PERF_RECORD_FORK = 7;
    /** In a PERF_RECORD_COMM header's misc: the name changed because the task called exec. */
    public static final int PERF_RECORD_MISC_COMM_EXEC = 1 << 13;
    public static final int PERF_RECORD_THROTTLE = 5;
    public static final int PERF_RECORD_UNTHROTTLE = 6;
    public static final int PERF_RECORD_SAMPLE = 9;
    public static final int HEADER_SIZE = 8;

    /** struct perf_event_mmap_page: data_head / data_tail offsets in the first page. */
    public static final int DATA_HEAD_OFFSET = 1024;
    public static final int DATA_TAIL_OFFSET = 1032;

    /** PERF_CONTEXT_USER: the marker before the user part of a callchain; markers are >= PERF_CONTEXT_MAX. */
    public static final long PERF_CONTEXT_USER = -512L;
    public static final long PERF_CONTEXT_MAX = -4095L;
}
