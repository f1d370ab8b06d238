package dev.bpf4j.fuzz;

import dev.bpf4j.api.PerCpuValues;
import dev.bpf4j.api.MapDump;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A map's contents as lines two engines must agree on: {@code m0: KEY=VALUE ...} (keys sorted as the
 * dump sorts them; queues and ring buffers: values only). Per-CPU values are summed over CPUs as u64
 * words: which CPU's slot a run touches is the scheduler's choice, not the engine's.
 */
final class MapLines {
    private MapLines() {}

    private static final HexFormat HEX = HexFormat.of();

    static String line(String name, List<MapDump.Entry> dump, boolean percpu) {
        List<String> entries = new ArrayList<>();
        for (MapDump.Entry e : dump) {
            String key = e.key() == null ? "" : HEX.formatHex(e.key()) + "=";
            entries.add(key + HEX.formatHex(percpu ? PerCpuValues.sum(e.values()) : e.values().get(0)));
        }
        return name + ": " + String.join(" ", entries);
    }

}
