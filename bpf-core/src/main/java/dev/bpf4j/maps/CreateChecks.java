package dev.bpf4j.maps;

/** The sanity checks of the kernel's {@code map_alloc_check} functions, shared by the map types. */
final class CreateChecks {
    private CreateChecks() {}

    static final int ACCESS_MASK = MapFlags.BPF_F_RDONLY | MapFlags.BPF_F_RDONLY_PROG
            | MapFlags.BPF_F_WRONLY | MapFlags.BPF_F_WRONLY_PROG;
    static final int BPF_F_PRESERVE_ELEMS = 1 << 11;
    static final int BPF_F_INNER_MAP = 1 << 12;
    static final int ARRAY_MASK = MapFlags.BPF_F_NUMA_NODE | MapFlags.BPF_F_MMAPABLE | ACCESS_MASK
            | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP;
    static final int HTAB_MASK = MapFlags.BPF_F_NO_PREALLOC | MapFlags.BPF_F_NO_COMMON_LRU | MapFlags.BPF_F_NUMA_NODE
            | ACCESS_MASK | MapFlags.BPF_F_ZERO_SEED;
    static final int QUEUE_STACK_MASK = MapFlags.BPF_F_NUMA_NODE | ACCESS_MASK;
    /** {@code PCPU_MIN_UNIT_SIZE}: the largest per-CPU value. */
    static final int PCPU_MIN_UNIT_SIZE = 32 << 10;
    /** {@code KMALLOC_MAX_SIZE} on x86-64 (4 MiB pages order 10): bigger values are {@code -E2BIG}. */
    static final long KMALLOC_MAX_SIZE = 1L << 22;

    static BpfMapException fail(MapDefinition def, int errno, String why) {
        return new BpfMapException(errno, "cannot create map '" + def.name() + "' (" + def.type() + "): " + why);
    }

    /** Unknown flags, or both read-only and write-only (kernel {@code bpf_map_flags_access_ok}). */
    static void flags(MapDefinition def, int mask) {
        int f = def.flags();
        if ((f & ~mask) != 0) {
            throw fail(def, Errno.EINVAL, String.format("map_flags 0x%x not supported for this type (allowed 0x%x)", f, mask));
        }
        boolean both = (f & (MapFlags.BPF_F_RDONLY | MapFlags.BPF_F_WRONLY)) == (MapFlags.BPF_F_RDONLY | MapFlags.BPF_F_WRONLY)
                || (f & (MapFlags.BPF_F_RDONLY_PROG | MapFlags.BPF_F_WRONLY_PROG))
                        == (MapFlags.BPF_F_RDONLY_PROG | MapFlags.BPF_F_WRONLY_PROG);
        if (both) throw fail(def, Errno.EINVAL, "map cannot be both read-only and write-only");
    }

    /** map_check_btf: a bpf_spin_lock only in HASH and ARRAY values (else -EOPNOTSUPP), aligned and inside the value. */
    static void spinLock(MapDefinition def) {
        if (!def.hasSpinLock()) return;
        if (def.type() != MapType.HASH && def.type() != MapType.ARRAY) {
            throw fail(def, Errno.EOPNOTSUPP, "bpf_spin_lock is only supported in HASH and ARRAY values");
        }
        require(def, def.spinLockOffset() % 4 == 0 && Integer.toUnsignedLong(def.spinLockOffset()) + 4 <= Integer.toUnsignedLong(def.valueSize()),
                "bpf_spin_lock at offset " + def.spinLockOffset() + " is not a 4-byte aligned word inside the value");
    }

    static void require(MapDefinition def, boolean ok, String why) {
        if (!ok) throw fail(def, Errno.EINVAL, why);
    }

    /**
     * Largest value arena one map may preallocate (zeroed, so really committed): system property
     * {@code bpf4j.maps.maxArenaBytes}, default 4 GiB. The kernel's memcg limit plays this role.
     */
    static long maxArenaBytes() { return Long.getLong("bpf4j.maps.maxArenaBytes", 4L << 30); }

    /** Total bytes of {@code count} slots of {@code stride}, or {@code -ENOMEM} past {@link #maxArenaBytes()}. */
    static long arenaBytes(MapDefinition def, long count, long stride) {
        if (count <= 0 || stride <= 0) return Math.max(0, count * stride);
        if (count > Long.MAX_VALUE / stride || count * stride > maxArenaBytes()) {
            throw fail(def, Errno.ENOMEM, "needs " + count + " x " + stride + " bytes, more than bpf4j.maps.maxArenaBytes="
                    + maxArenaBytes());
        }
        return count * stride;
    }
}
