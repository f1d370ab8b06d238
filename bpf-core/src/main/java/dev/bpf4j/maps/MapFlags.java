package dev.bpf4j.maps;

/** Flag values from uapi {@code linux/bpf.h}. */
public final class MapFlags {
    private MapFlags() {}

    // Update flags (bpf_map_update_elem, bpf_map_push_elem).
    /** Create a new element or update an existing one. */
    public static final long BPF_ANY = 0;
    /** Create a new element only if it did not exist. */
    public static final long BPF_NOEXIST = 1;
    /** Update an existing element only. */
    public static final long BPF_EXIST = 2;
    /** Update under the value's {@code bpf_spin_lock}. */
    public static final long BPF_F_LOCK = 4;

    // Creation flags (map_flags).
    public static final int BPF_F_NO_PREALLOC = 1;
    public static final int BPF_F_NO_COMMON_LRU = 1 << 1;
    public static final int BPF_F_NUMA_NODE = 1 << 2;
    public static final int BPF_F_RDONLY = 1 << 3;
    public static final int BPF_F_WRONLY = 1 << 4;
    public static final int BPF_F_STACK_BUILD_ID = 1 << 5;
    public static final int BPF_F_ZERO_SEED = 1 << 6;
    public static final int BPF_F_RDONLY_PROG = 1 << 7;
    public static final int BPF_F_WRONLY_PROG = 1 << 8;
    public static final int BPF_F_MMAPABLE = 1 << 10;
    /** An array inner-map template whose max_entries need not match the inner maps'. */
    public static final int BPF_F_INNER_MAP = 1 << 12;

    // Ring buffer flags.
    public static final long BPF_RB_NO_WAKEUP = 1;
    public static final long BPF_RB_FORCE_WAKEUP = 2;
    public static final long BPF_RB_AVAIL_DATA = 0;
    public static final long BPF_RB_RING_SIZE = 1;
    public static final long BPF_RB_CONS_POS = 2;
    public static final long BPF_RB_PROD_POS = 3;
}
