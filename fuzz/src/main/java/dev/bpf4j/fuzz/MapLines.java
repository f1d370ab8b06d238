package dev.bpf4j.fuzz;

import dev.bpf4j.api.MapDump;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
            entries.add(key + HEX.formatHex(percpu ? sum(e.values()) : e.values().get(0)));
        }
        return name + ": " + String.join(" ", entries);
    }

    static byte[] sum(List<byte[]> values) {
        byte[] out = new byte[values.get(0).length];
        ByteBuffer acc = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        for (int off = 0; off + 8 <= out.length; off += 8) {
            long s = 0;
            for (byte[] v : values) s += ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(off);
            acc.putLong(off, s);
        }
        return out;
    }
}
