package dev.bpf4j.maps;

import java.util.Arrays;

/**
 * {@code enum bpf_map_type} of {@code include/uapi/linux/bpf.h}, with the kernel's names and numbers
 * (the constant's ordinal is its number). An object may name any of them; {@link #implemented()}
 * says which ones bpf4j can create ({@link Maps#create}).
 */
public enum MapType {
    UNSPEC(false), HASH(true), ARRAY(true), PROG_ARRAY(true), PERF_EVENT_ARRAY(false), PERCPU_HASH(true),
    PERCPU_ARRAY(true), STACK_TRACE(true), CGROUP_ARRAY(false), LRU_HASH(true), LRU_PERCPU_HASH(true),
    LPM_TRIE(false), ARRAY_OF_MAPS(true), HASH_OF_MAPS(true), DEVMAP(true), SOCKMAP(false), CPUMAP(true),
    XSKMAP(true), SOCKHASH(false), CGROUP_STORAGE(false), REUSEPORT_SOCKARRAY(false), PERCPU_CGROUP_STORAGE(false),
    QUEUE(true), STACK(true), SK_STORAGE(false), DEVMAP_HASH(true), STRUCT_OPS(false), RINGBUF(true),
    INODE_STORAGE(false), TASK_STORAGE(false), BLOOM_FILTER(false), USER_RINGBUF(false), CGRP_STORAGE(false),
    ARENA(false);

    private static final MapType[] BY_ID = values();

    private final boolean implemented;

    MapType(boolean implemented) { this.implemented = implemented; }

    /** The kernel's {@code BPF_MAP_TYPE_*} value. */
    public int id() { return ordinal(); }

    /** Whether bpf4j can create a map of this type. */
    public boolean implemented() { return implemented; }

    public boolean isPercpu() { return this == PERCPU_ARRAY || this == PERCPU_HASH || this == LRU_PERCPU_HASH; }

    public boolean isHash() { return this == HASH || this == PERCPU_HASH || this == LRU_HASH || this == LRU_PERCPU_HASH; }

    /** {@code ARRAY_OF_MAPS} or {@code HASH_OF_MAPS}: values are inner maps. */
    public boolean isMapInMap() { return this == ARRAY_OF_MAPS || this == HASH_OF_MAPS; }

    /** The targets of {@code bpf_redirect_map}: DEVMAP, DEVMAP_HASH, CPUMAP, XSKMAP. */
    public boolean isRedirect() { return this == DEVMAP || this == DEVMAP_HASH || this == CPUMAP || this == XSKMAP; }

    public boolean isLru() { return this == LRU_HASH || this == LRU_PERCPU_HASH; }

    /** The type with kernel number {@code id}, or null for a number this library does not know. */
    public static MapType of(long id) { return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null; }

    /** The type with kernel id {@code id}; a clear error for types bpf4j does not implement. */
    public static MapType fromId(int id) {
        MapType t = of(id);
        if (t != null && t.implemented) return t;
        throw new BpfMapException(Errno.EINVAL, "map type " + id + (t == null ? "" : " (" + t + ")")
                + " is not supported by bpf4j (supported: " + Arrays.toString(implementedTypes()) + ")");
    }

    private static MapType[] implementedTypes() {
        return Arrays.stream(BY_ID).filter(MapType::implemented).toArray(MapType[]::new);
    }
}
