package dev.bpf4j.object;

/** {@code enum bpf_map_type} of {@code include/uapi/linux/bpf.h}, with the kernel's numbers. */
public enum BpfMapType {
    UNSPEC(0), HASH(1), ARRAY(2), PROG_ARRAY(3), PERF_EVENT_ARRAY(4), PERCPU_HASH(5), PERCPU_ARRAY(6),
    STACK_TRACE(7), CGROUP_ARRAY(8), LRU_HASH(9), LRU_PERCPU_HASH(10), LPM_TRIE(11), ARRAY_OF_MAPS(12),
    HASH_OF_MAPS(13), DEVMAP(14), SOCKMAP(15), CPUMAP(16), XSKMAP(17), SOCKHASH(18), CGROUP_STORAGE(19),
    REUSEPORT_SOCKARRAY(20), PERCPU_CGROUP_STORAGE(21), QUEUE(22), STACK(23), SK_STORAGE(24),
    DEVMAP_HASH(25), STRUCT_OPS(26), RINGBUF(27), INODE_STORAGE(28), TASK_STORAGE(29), BLOOM_FILTER(30),
    USER_RINGBUF(31), CGRP_STORAGE(32), ARENA(33);

    private static final BpfMapType[] BY_ID = values();

    /** The kernel's {@code BPF_MAP_TYPE_*} value. */
    public final int id;

    BpfMapType(int id) { this.id = id; }

    /** The type with kernel number {@code id}, or null for a number this library does not know. */
    public static BpfMapType of(long id) { return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null; }

    public boolean isMapInMap() { return this == ARRAY_OF_MAPS || this == HASH_OF_MAPS; }
}
