package dev.bpf4j.object;

/**
 * An {@code lddw} at {@code pc} that refers to a map, left for the loader to resolve. Its first slot's
 * src already says which kind ({@code PSEUDO_MAP_FD} or {@code PSEUDO_MAP_VALUE}), its imm is 0 (the
 * map's fd or index goes there), and for a value reference the second slot's imm is {@code offset}.
 *
 * @param mapName the name of the map in the object spec
 * @param offset  byte offset inside the map value for {@link Kind#VALUE}, else 0
 * @param symbol  the ELF symbol the relocation named (variable, map, or section)
 */
public record MapReference(int pc, Kind kind, String mapName, int offset, String symbol) {
    public enum Kind {
        /** The map itself ({@code BPF_PSEUDO_MAP_FD}). */
        MAP,
        /** An address inside the map's single value ({@code BPF_PSEUDO_MAP_VALUE}): global data. */
        VALUE
    }
}
