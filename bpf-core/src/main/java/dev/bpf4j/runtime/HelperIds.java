package dev.bpf4j.runtime;

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
    public static final int GET_CURRENT_UID_GID = 15;
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
    public static final int SKB_CGROUP_ID = 79;
    public static final int GET_CURRENT_CGROUP_ID = 80;
    public static final int SKB_ANCESTOR_CGROUP_ID = 83;
    public static final int SKB_ECN_SET_CE = 97;
    public static final int PROBE_READ_USER = 112;
    public static final int GET_NS_CURRENT_PID_TGID = 120;
    public static final int GET_CURRENT_ANCESTOR_CGROUP_ID = 123;
    public static final int COPY_FROM_USER = 148;
    public static final int GET_CURRENT_TASK_BTF = 158;
    public static final int FIND_VMA = 180;
    public static final int COPY_FROM_USER_TASK = 191;
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
    public static final int TRACE_VPRINTK = 177;
    public static final int LOOP = 181;
    public static final int STRNCMP = 182;

    public static final int SKB_STORE_BYTES = 9;
    public static final int L3_CSUM_REPLACE = 10;
    public static final int L4_CSUM_REPLACE = 11;
    public static final int SKB_VLAN_PUSH = 18;
    public static final int SKB_VLAN_POP = 19;
    public static final int REDIRECT = 23;
    public static final int SKB_LOAD_BYTES = 26;
    public static final int CSUM_DIFF = 28;
    public static final int CSUM_UPDATE = 40;
    public static final int SKB_CHANGE_PROTO = 31;
    public static final int SKB_CHANGE_TYPE = 32;
    public static final int SKB_CHANGE_TAIL = 38;
    public static final int SKB_PULL_DATA = 39;
    public static final int SKB_CHANGE_HEAD = 43;
    public static final int XDP_ADJUST_HEAD = 44;
    public static final int GET_HASH_RECALC = 34;
    public static final int SET_HASH_INVALID = 41;
    public static final int REDIRECT_MAP = 51;
    public static final int SET_HASH = 48;
    public static final int SKB_ADJUST_ROOM = 50;
    public static final int XDP_ADJUST_META = 54;
    public static final int XDP_ADJUST_TAIL = 65;
    public static final int SKB_LOAD_BYTES_RELATIVE = 68;
    public static final int STRTOL = 105;
    public static final int STRTOUL = 106;
    public static final int JIFFIES64 = 118;
    public static final int CSUM_LEVEL = 135;
    public static final int KTIME_GET_COARSE_NS = 160;
    public static final int XDP_GET_BUFF_LEN = 188;
    public static final int XDP_LOAD_BYTES = 189;
    public static final int XDP_STORE_BYTES = 190;
    public static final int MAP_LOOKUP_PERCPU_ELEM = 195;
    public static final int KTIME_GET_TAI_NS = 208;

    /**
     * The helpers that may move or reallocate the packet (the kernel's {@code bpf_helper_changes_pkt_data},
     * for those bpf4j has): after a call to one, packet pointers loaded before may no longer be inside the
     * packet. The JIT proves no packet access of a program that calls one.
     */
    public static boolean changesPacketData(int id) {
        switch (id) {
            case SKB_STORE_BYTES: case L3_CSUM_REPLACE: case L4_CSUM_REPLACE: case SKB_CHANGE_TAIL: case SKB_PULL_DATA:
            case SKB_CHANGE_HEAD: case XDP_ADJUST_HEAD: case SKB_ADJUST_ROOM: case XDP_ADJUST_META: case XDP_ADJUST_TAIL:
            case SKB_VLAN_PUSH: case SKB_VLAN_POP: case SKB_CHANGE_PROTO:
                return true;
            default:
                return false;
        }
    }
}
