package dev.bpf4j.maps;

import java.util.Objects;

/**
 * What a map is, as {@code BPF_MAP_CREATE} receives it: type, key/value sizes, capacity and
 * {@code map_flags}. Sizes are the kernel's unsigned 32-bit values; each map type checks them as its
 * kernel {@code map_alloc_check} does when the map is created. {@code spinLockOffset} is the offset of
 * a {@code struct bpf_spin_lock} in the value (from BTF), or -1 when the value has none.
 * {@code innerMap} is the template of the maps an {@code ARRAY_OF_MAPS} / {@code HASH_OF_MAPS} holds
 * (the kernel's {@code inner_map_fd}: the template's type, sizes, flags, max_entries and spin lock), else null.
 */
public record MapDefinition(String name, MapType type, int keySize, int valueSize, int maxEntries, int flags,
                            int spinLockOffset, MapDefinition innerMap) {
    public MapDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (spinLockOffset < -1) throw new IllegalArgumentException("spinLockOffset must be -1 (none) or an offset");
    }

    /** A definition that is not a map-in-map. */
    public MapDefinition(String name, MapType type, int keySize, int valueSize, int maxEntries, int flags, int spinLockOffset) {
        this(name, type, keySize, valueSize, maxEntries, flags, spinLockOffset, null);
    }

    /** A definition whose value has no {@code bpf_spin_lock}. */
    public MapDefinition(String name, MapType type, int keySize, int valueSize, int maxEntries, int flags) {
        this(name, type, keySize, valueSize, maxEntries, flags, -1, null);
    }

    /** A definition from a kernel map type id ({@code BPF_MAP_TYPE_*}). */
    public static MapDefinition of(String name, int typeId, int keySize, int valueSize, int maxEntries, int flags) {
        return new MapDefinition(name, MapType.fromId(typeId), keySize, valueSize, maxEntries, flags);
    }

    public MapDefinition withFlags(int newFlags) {
        return new MapDefinition(name, type, keySize, valueSize, maxEntries, newFlags, spinLockOffset, innerMap);
    }

    /** The same map with a {@code bpf_spin_lock} at {@code offset} of the value. */
    public MapDefinition withSpinLock(int offset) {
        return new MapDefinition(name, type, keySize, valueSize, maxEntries, flags, offset, innerMap);
    }

    /** The same map-in-map with {@code template} as its inner map definition. */
    public MapDefinition withInnerMap(MapDefinition template) {
        return new MapDefinition(name, type, keySize, valueSize, maxEntries, flags, spinLockOffset, template);
    }

    public boolean hasSpinLock() { return spinLockOffset >= 0; }

    /** True when programs may only read the map's values ({@code BPF_F_RDONLY_PROG}). */
    public boolean readOnlyForPrograms() { return (flags & MapFlags.BPF_F_RDONLY_PROG) != 0; }

    /** The value slot size: {@code round_up(value_size, 8)}, as the kernel lays out array and hash values. */
    public int valueStride() { return (int) ((Integer.toUnsignedLong(valueSize) + 7) & ~7L); }
}
