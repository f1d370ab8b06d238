package dev.bpf4j.cli;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunResult;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What {@code bpf4j run OBJ.o} prints for one engine ({@code retval}, {@code data_out}, {@code ctx_out},
 * one bpftool-style JSON line per map) and, line for line, what {@code --engine all} compares: the same
 * text, except that a per-CPU map is compared by the sum of its CPUs' values — which CPU's slot a run
 * touches depends on where the thread (or the kernel's test run) was scheduled, not on the engine.
 */
record EngineRun(List<String> lines, List<String> compared) {
    static final class Builder {
        private final List<String> lines = new ArrayList<>();
        private final List<String> compared = new ArrayList<>();

        Builder result(RunResult r) {
            HexFormat hex = HexFormat.of();
            line("retval: " + r.retval());
            if (r.dataOut() != null) line("data_out: " + hex.formatHex(r.dataOut()));
            if (r.ctxOut() != null) line("ctx_out: " + hex.formatHex(r.ctxOut()));
            return this;
        }

        Builder map(String name, boolean percpu, List<MapDump.Entry> entries) {
            lines.add(MapDump.json(name, percpu, entries));
            if (!percpu) {
                compared.add(lines.get(lines.size() - 1));
            } else {
                List<MapDump.Entry> summed = entries.stream().map(e -> new MapDump.Entry(e.key(), List.of(sum(e.values())))).toList();
                compared.add("summed over CPUs: " + MapDump.json(name, false, summed));
            }
            return this;
        }

        private void line(String s) {
            lines.add(s);
            compared.add(s);
        }

        EngineRun build() { return new EngineRun(List.copyOf(lines), List.copyOf(compared)); }
    }

    /** Adds the values as little-endian u64 words (a short last word padded with zeros). */
    static byte[] sum(List<byte[]> values) {
        int n = values.get(0).length;
        ByteBuffer acc = ByteBuffer.allocate((n + 7) & ~7).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] v : values) {
            ByteBuffer w = ByteBuffer.wrap(Arrays.copyOf(v, acc.capacity())).order(ByteOrder.LITTLE_ENDIAN);
            for (int off = 0; off < acc.capacity(); off += 8) acc.putLong(off, acc.getLong(off) + w.getLong(off));
        }
        return Arrays.copyOf(acc.array(), n);
    }
}
