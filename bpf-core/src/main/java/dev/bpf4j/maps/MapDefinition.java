package dev.bpf4j.maps;

import java.util.Objects;

/**
 * What a map is, as {@code BPF_MAP_CREATE} receives it: type, key/value sizes, capacity and
 * {@code map_flags}. Sizes are the kernel's unsigned 32-bit values; each map type checks them as its
 * kernel {@code map_alloc_check} does when the map is created.
 */
public record MapDefinition(String name, MapType type, int keySize, int valueSize, int maxEntries, int flags) {
    public MapDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    /** A definition from a kernel map type id ({@code BPF_MAP_TYPE_*}). */
    public static MapDefinition of(String name, int typeId, int keySize, int valueSize, int maxEntries, int flags) {
        return new MapDefinition(name, MapType.fromId(typeId), keySize, valueSize, maxEntries, flags);
    }

    public MapDefinition withFlags(int newFlags) {
        return new MapDefinition(name, type, keySize, valueSize, maxEntries, newFlags);
    }

    /** True when programs may only read the map's values ({@code BPF_F_RDONLY_PROG}). */
    public boolean readOnlyForPrograms() { return (flags & MapFlags.BPF_F_RDONLY_PROG) != 0; }

    /** The value slot size: {@code round_up(value_size, 8)}, as the kernel lays out array and hash values. */
    public int valueStride() { return (int) ((Integer.toUnsignedLong(valueSize) + 7) & ~7L); }
}
