package dev.bpf4j.maps;

/** Creates the live map for a {@link MapDefinition}, as {@code BPF_MAP_CREATE} does. */
public final class Maps {
    private Maps() {}

    /**
     * A new, empty (zeroed) map; throws {@link BpfMapException} for definitions the kernel would refuse,
     * and {@code ENOMEM} when the preallocated pool does not fit in memory.
     */
    public static BpfMap create(MapDefinition def) {
        try {
            return make(def);
        } catch (OutOfMemoryError e) {
            throw new BpfMapException(Errno.ENOMEM, "cannot create " + "map '" + def.name() + "' (" + def.type() + ", "
                    + Integer.toUnsignedString(def.maxEntries()) + " entries): " + e.getMessage());
        }
    }

    /** The open map with this {@link BpfMap#id() id} ({@code BPF_MAP_GET_FD_BY_ID}), or empty. */
    public static java.util.Optional<BpfMap> byId(int id) { return MapIds.find(id); }

    private static BpfMap make(MapDefinition def) {
        CreateChecks.spinLock(def);
        switch (def.type()) {
            case ARRAY:
            case PERCPU_ARRAY: return new ArrayMap(def);
            case HASH:
            case PERCPU_HASH:
            case LRU_HASH:
            case LRU_PERCPU_HASH: return new HashTabMap(def);
            case QUEUE:
            case STACK: return new QueueStackMap(def);
            case RINGBUF: return new RingBufMap(def);
            case PROG_ARRAY: return new ProgArrayMap(def);
            case DEVMAP:
            case DEVMAP_HASH:
            case CPUMAP:
            case XSKMAP: return new RedirectMap(def);
            case STACK_TRACE: return new StackTraceMap(def);
            case ARRAY_OF_MAPS:
            case HASH_OF_MAPS: return new MapOfMaps(def);
            default: throw new BpfMapException(Errno.EINVAL, "map type " + def.type() + " is not supported");
        }
    }
}
