package dev.bpf4j.it.corpus;

import dev.bpf4j.api.PerCpuValues;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.runtime.BpfException;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything observable about a case on one engine: per run retval / data_out / ctx_out (or the error),
 * then every map's contents. Per-CPU values are summed over CPUs (as little-endian u64 words): which
 * CPU's slot a run touches depends on where the thread was scheduled, not on the engine.
 */
record Outcome(List<String> runs, Map<String, List<String>> maps) {
    private static final HexFormat HEX = HexFormat.of();

    static Outcome of(BpfObject obj, CorpusCase c) {
        List<String> runs = new ArrayList<>();
        for (var o : c.runs()) {
            try {
                RunResult r = obj.program(c.program()).run(o);
                runs.add("retval=" + r.retval() + (r.dataOut() == null ? "" : " data_out=" + HEX.formatHex(r.dataOut()))
                        + (r.ctxOut() == null ? "" : " ctx_out=" + HEX.formatHex(r.ctxOut())));
            } catch (BpfException e) {
                runs.add("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        Map<String, List<String>> maps = new LinkedHashMap<>();
        for (BpfMap m : obj.maps()) maps.put(m.name(), lines(MapDump.entries(m), m.type().isPercpu()));
        return new Outcome(runs, maps);
    }

    /** "key=value" per entry ("value" alone for queues, stacks and ring buffers); per-CPU values summed. */
    static List<String> lines(List<MapDump.Entry> dump, boolean percpu) {
        List<String> entries = new ArrayList<>();
        for (MapDump.Entry e : dump) {
            String key = e.key() == null ? "" : HEX.formatHex(e.key()) + "=";
            // a map-in-map slot: its value is a map id, which differs between loads; compare the inner map's name
            entries.add(key + (e.innerMap() != null ? e.innerMap() : HEX.formatHex(percpu ? PerCpuValues.sum(e.values()) : e.values().get(0))));
        }
        return entries;
    }


    /** The map's entry under {@code keyHex}, or null. */
    String entry(String map, String keyHex) {
        for (String e : maps.get(map)) if (e.startsWith(keyHex + "=")) return e.substring(keyHex.length() + 1);
        return null;
    }
}
