package dev.bpf4j.maps;

/** The map types bpf4j implements, with their ids from uapi {@code enum bpf_map_type}. */
public enum MapType {
    HASH(1),
    ARRAY(2),
    PROG_ARRAY(3),
    PERCPU_HASH(5),
    PERCPU_ARRAY(6),
    STACK_TRACE(7),
    LRU_HASH(9),
    LRU_PERCPU_HASH(10),
    ARRAY_OF_MAPS(12),
    HASH_OF_MAPS(13),
    DEVMAP(14),
    CPUMAP(16),
    XSKMAP(17),
    QUEUE(22),
    STACK(23),
    DEVMAP_HASH(25),
    RINGBUF(27);

    private final int id;

    MapType(int id) { this.id = id; }

    /** The kernel's {@code BPF_MAP_TYPE_*} value. */
    public int id() { return id; }

    public boolean isPercpu() { return this == PERCPU_ARRAY || this == PERCPU_HASH || this == LRU_PERCPU_HASH; }

    public boolean isHash() { return this == HASH || this == PERCPU_HASH || this == LRU_HASH || this == LRU_PERCPU_HASH; }

    /** {@code ARRAY_OF_MAPS} or {@code HASH_OF_MAPS}: values are inner maps. */
    public boolean isMapInMap() { return this == ARRAY_OF_MAPS || this == HASH_OF_MAPS; }

    /** The targets of {@code bpf_redirect_map}: DEVMAP, DEVMAP_HASH, CPUMAP, XSKMAP. */
    public boolean isRedirect() { return this == DEVMAP || this == DEVMAP_HASH || this == CPUMAP || this == XSKMAP; }

    public boolean isLru() { return this == LRU_HASH || this == LRU_PERCPU_HASH; }

    /** The type with kernel id {@code id}; a clear error for types bpf4j does not implement. */
    public static MapType fromId(int id) {
        for (MapType t : values()) if (t.id == id) return t;
        throw new BpfMapException(Errno.EINVAL, "map type " + id + " is not supported by bpf4j (supported: "
                + java.util.Arrays.toString(values()) + ")");
    }
}
