package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable description of a map, parsed from an object and editable before load through the
 * {@code with...} copies.
 *
 * @param name        the map's name: the variable name for BTF and legacy maps, libbpf's
 *                    {@code <obj>.data}-style name for global-data maps
 * @param section     the ELF section it was defined in ({@code .maps}, {@code maps}, {@code .rodata}, ...)
 * @param flags       {@code map_flags} ({@code BPF_F_*})
 * @param keyTypeId   BTF type id of the key, 0 when unknown
 * @param valueTypeId BTF type id of the value (the DATASEC for global data), 0 when unknown
 * @param innerMap    template of the inner map of a map-in-map, else null
 * @param initialSlots initial {@code .values} of a map-in-map or prog array: slot index to the name
 *                    of the map or program placed there
 * @param contents    initial value of a global-data map (its section bytes; zeros for .bss), else null
 */
public record MapSpec(String name, String section, MapType type, int keySize, int valueSize, int maxEntries,
                      int flags, Pinning pinning, int numaNode, long mapExtra, int keyTypeId, int valueTypeId,
                      MapSpec innerMap, Map<Integer, String> initialSlots, byte[] contents) {
    /** {@code BPF_F_NO_PREALLOC}, {@code BPF_F_RDONLY_PROG} and {@code BPF_F_MMAPABLE} of the kernel. */
    public static final int BPF_F_NO_PREALLOC = 1, BPF_F_RDONLY_PROG = 1 << 7, BPF_F_MMAPABLE = 1 << 10;

    public MapSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pinning, "pinning");
        initialSlots = Map.copyOf(new TreeMap<>(initialSlots));
        contents = contents == null ? null : contents.clone();
    }

    /** A plain map definition (no BTF, no initial data). */
    public static MapSpec of(String name, MapType type, int keySize, int valueSize, int maxEntries, int flags) {
        return new MapSpec(name, "", type, keySize, valueSize, maxEntries, flags, Pinning.NONE, 0, 0, 0, 0, null, Map.of(), null);
    }

    /** A copy of the initial contents, or null when the map starts empty. */
    @Override public byte[] contents() { return contents == null ? null : contents.clone(); }

    /** Initial slots in slot order. */
    public Map<Integer, String> initialSlotsSorted() { return new TreeMap<>(initialSlots); }

    /** True for the maps libbpf creates for {@code .data}, {@code .rodata*}, {@code .bss*} and {@code .kconfig}. */
    public boolean isInternal() { return section.startsWith(".data") || section.startsWith(".rodata") || section.startsWith(".bss") || section.equals(".kconfig"); }

    /** True when programs may not write to it ({@code BPF_F_RDONLY_PROG}). */
    public boolean isReadOnly() { return (flags & BPF_F_RDONLY_PROG) != 0; }

    public MapSpec withName(String v) { return new MapSpec(v, section, type, keySize, valueSize, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withType(MapType v) { return new MapSpec(name, section, v, keySize, valueSize, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withKeySize(int v) { return new MapSpec(name, section, type, v, valueSize, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withValueSize(int v) { return new MapSpec(name, section, type, keySize, v, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withMaxEntries(int v) { return new MapSpec(name, section, type, keySize, valueSize, v, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withFlags(int v) { return new MapSpec(name, section, type, keySize, valueSize, maxEntries, v, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withPinning(Pinning v) { return new MapSpec(name, section, type, keySize, valueSize, maxEntries, flags, v, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, contents); }

    public MapSpec withInnerMap(MapSpec v) { return new MapSpec(name, section, type, keySize, valueSize, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, v, initialSlots, contents); }

    public MapSpec withInitialSlots(Map<Integer, String> v) { return new MapSpec(name, section, type, keySize, valueSize, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, v, contents); }

    /** New initial contents; a global-data map's value size follows them. */
    public MapSpec withContents(byte[] v) {
        int size = v == null ? valueSize : v.length;
        return new MapSpec(name, section, type, keySize, size, maxEntries, flags, pinning, numaNode, mapExtra, keyTypeId, valueTypeId, innerMap, initialSlots, v);
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof MapSpec m)) return false;
        return name.equals(m.name) && section.equals(m.section) && type == m.type && keySize == m.keySize
                && valueSize == m.valueSize && maxEntries == m.maxEntries && flags == m.flags && pinning == m.pinning
                && numaNode == m.numaNode && mapExtra == m.mapExtra && keyTypeId == m.keyTypeId
                && valueTypeId == m.valueTypeId && Objects.equals(innerMap, m.innerMap)
                && initialSlots.equals(m.initialSlots) && Arrays.equals(contents, m.contents);
    }

    @Override public int hashCode() {
        return Objects.hash(name, section, type, keySize, valueSize, maxEntries, flags, pinning, initialSlots) * 31 + Arrays.hashCode(contents);
    }

    @Override public String toString() {
        return "MapSpec{" + name + " " + type + " key=" + keySize + " value=" + valueSize + " max=" + maxEntries
                + " flags=0x" + Integer.toHexString(flags) + (pinning == Pinning.NONE ? "" : " pinning=" + pinning)
                + (innerMap == null ? "" : " inner=" + innerMap) + (initialSlots.isEmpty() ? "" : " slots=" + initialSlotsSorted())
                + (contents == null ? "" : " contents=" + contents.length + "B") + " section=" + section + "}";
    }
}
