package dev.bpf4j.fuzz;

import dev.bpf4j.maps.MapType;

import java.util.ArrayList;
import java.util.List;

/**
 * The object around a generated tc program: its maps (by index), and, when one of them is a
 * {@link MapType#PROG_ARRAY}, what that array holds: slot 0 the program itself (so tail calls recurse
 * to the kernel's limit of 33), slot 1 a second program {@code r0 = tailR0; exit}, slot 2 nothing.
 */
public record ObjectShape(List<MapDef> maps, int tailR0) {
    public ObjectShape {
        maps = List.copyOf(maps);
    }

    /** Index of the program array, or -1. */
    public int progArray() {
        for (int i = 0; i < maps.size(); i++) if (maps.get(i).type() == MapType.PROG_ARRAY) return i;
        return -1;
    }

    /** Indexes of the maps of {@code type}. */
    public List<Integer> indexesOf(MapType type) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < maps.size(); i++) if (maps.get(i).type() == type) out.add(i);
        return out;
    }

    /** Indexes of the maps that hold values (arrays and hashes). */
    public List<Integer> valueMaps() {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < maps.size(); i++) if (maps.get(i).holdsValues()) out.add(i);
        return out;
    }

    /** The {@code -- fuzz-object} section of a reproducer: one line per map, then the tail target. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (MapDef m : maps) sb.append("map ").append(m.describe()).append('\n');
        return sb.append("tail-r0 ").append(tailR0).append('\n').toString();
    }

    /** Parses {@link #describe()}. */
    public static ObjectShape parse(String text) {
        List<MapDef> maps = new ArrayList<>();
        int tail = 0;
        for (String line : text.strip().split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w[0].equals("map") && w.length == 8) {
                maps.add(new MapDef(MapType.valueOf(w[1].toUpperCase()), Integer.parseInt(w[3]), Integer.parseInt(w[5]), Integer.parseInt(w[7])));
            } else if (w[0].equals("tail-r0") && w.length == 2) {
                tail = Integer.parseInt(w[1]);
            } else if (!line.isBlank()) {
                throw new IllegalArgumentException("fuzz-object: cannot read '" + line.trim() + "'");
            }
        }
        return new ObjectShape(maps, tail);
    }
}
