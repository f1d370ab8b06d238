package dev.bpf4j.runtime;

/**
 * What the verifier may know of the maps a program's constants name: after the object loader
 * resolved a map's {@code lddw} to its handle, the handle's key and value sizes (the kernel's
 * {@code CONST_PTR_TO_MAP} with its {@code struct bpf_map}). With them, map-value accesses are
 * proven against the real {@code value_size} and key and value arguments against the real sizes.
 */
@FunctionalInterface
public interface MapShapes {
    /**
     * A map's sizes; {@code valueSize} -1 where a lookup yields no plain value (a map of maps); {@code mapType}
     * its uapi {@code enum bpf_map_type}, 0 when not known (then any helper may take it); {@code maxEntries}
     * 0 when not known.
     */
    record Shape(int keySize, int valueSize, int mapType, long maxEntries) {
        public Shape(int keySize, int valueSize, int mapType) { this(keySize, valueSize, mapType, 0); }
        public Shape(int keySize, int valueSize) { this(keySize, valueSize, 0); }
    }

    /** The shape of the map whose handle is {@code handle}, or null when no map has it. */
    Shape of(long handle);

    /**
     * A map value the object loader resolved to its address ({@code BPF_PSEUDO_MAP_VALUE}: global
     * data): the map's handle and shape, and the offset into its value. The kernel's verifier types
     * such an {@code lddw} PTR_TO_MAP_VALUE, so the address is never a number to the program.
     */
    record Value(long handle, Shape map, long offset) {}

    /** The map value {@code address} lies in, or null (the default: no map values known). */
    default Value valueAt(long address) { return null; }

    /** No map known: every constant stays a number. */
    MapShapes NONE = handle -> null;
}
