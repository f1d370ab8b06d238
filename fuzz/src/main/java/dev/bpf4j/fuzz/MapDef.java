package dev.bpf4j.fuzz;

import dev.bpf4j.maps.MapType;

/**
 * One map of an {@link ObjectShape}: the {@code BPF_MAP_CREATE} attributes. The program names it by
 * its index ({@code lddw rN, map[index]}, {@code BPF_PSEUDO_MAP_FD} with imm = index).
 */
public record MapDef(MapType type, int keySize, int valueSize, int maxEntries) {
    public boolean isHashLike() {
        return switch (type) { case HASH, PERCPU_HASH, LRU_HASH, LRU_PERCPU_HASH -> true; default -> false; };
    }

    public boolean isArrayLike() { return type == MapType.ARRAY || type == MapType.PERCPU_ARRAY; }

    /** Maps the program looks up, updates and deletes in (not ring buffers or program arrays). */
    public boolean holdsValues() { return isHashLike() || isArrayLike(); }

    /** "hash key 4 value 16 entries 8": a line of a reproducer's {@code -- fuzz-object} section. */
    public String describe() {
        return type.name().toLowerCase() + " key " + keySize + " value " + valueSize + " entries " + maxEntries;
    }
}
