package dev.bpf4j.helpers;

/**
 * Helper ids from uapi {@code linux/bpf.h} ({@code __BPF_FUNC_MAPPER}), checked against libbpf's
 * generated {@code bpf_helper_defs.h}.
 */
public final class HelperIds {
    private HelperIds() {}

    public static final int MAP_LOOKUP_ELEM = 1;
    public static final int MAP_UPDATE_ELEM = 2;
    public static final int MAP_DELETE_ELEM = 3;
    public static final int PROBE_READ = 4;
    public static final int KTIME_GET_NS = 5;
    public static final int TRACE_PRINTK = 6;
    public static final int GET_PRANDOM_U32 = 7;
    public static final int GET_SMP_PROCESSOR_ID = 8;
    public static final int TAIL_CALL = 12;
    public static final int GET_CURRENT_PID_TGID = 14;
    public static final int GET_CURRENT_COMM = 16;
    public static final int GET_STACKID = 27;
    public static final int GET_NUMA_NODE_ID = 42;
    public static final int PROBE_READ_STR = 45;
    public static final int GET_STACK = 67;
    public static final int SPIN_LOCK = 93;
    public static final int SPIN_UNLOCK = 94;
    public static final int MAP_PUSH_ELEM = 87;
    public static final int MAP_POP_ELEM = 88;
    public static final int MAP_PEEK_ELEM = 89;
    public static final int PROBE_READ_USER = 112;
    public static final int PROBE_READ_KERNEL = 113;
    public static final int PROBE_READ_USER_STR = 114;
    public static final int PROBE_READ_KERNEL_STR = 115;
    public static final int KTIME_GET_BOOT_NS = 125;
    public static final int RINGBUF_OUTPUT = 130;
    public static final int RINGBUF_RESERVE = 131;
    public static final int RINGBUF_SUBMIT = 132;
    public static final int RINGBUF_DISCARD = 133;
    public static final int RINGBUF_QUERY = 134;
    public static final int FOR_EACH_MAP_ELEM = 164;
    public static final int SNPRINTF = 165;
    public static final int LOOP = 181;
    public static final int STRNCMP = 182;
}
