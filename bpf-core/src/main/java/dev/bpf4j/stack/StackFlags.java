package dev.bpf4j.stack;

/** The flags of {@code bpf_get_stackid} / {@code bpf_get_stack} (uapi {@code linux/bpf.h}). */
public final class StackFlags {
    private StackFlags() {}

    /** Low 8 bits: how many innermost ips to skip. */
    public static final long BPF_F_SKIP_FIELD_MASK = 0xffL;
    public static final long BPF_F_USER_STACK = 1L << 8;
    /** get_stackid: a bucket whose hash matches is taken as the same trace without comparing ips. */
    public static final long BPF_F_FAST_STACK_CMP = 1L << 9;
    /** get_stackid: a different trace in the bucket is replaced instead of failing with -EEXIST. */
    public static final long BPF_F_REUSE_STACKID = 1L << 10;
    /** get_stack: build id + offset entries (not supported by bpf4j). */
    public static final long BPF_F_USER_BUILD_ID = 1L << 11;

    /** The kernel's {@code sysctl_perf_event_max_stack} default: the longest trace either helper collects. */
    public static final int PERF_EVENT_MAX_STACK = 127;

    public static int skip(long flags) { return (int) (flags & BPF_F_SKIP_FIELD_MASK); }

    public static boolean user(long flags) { return (flags & BPF_F_USER_STACK) != 0; }
}
