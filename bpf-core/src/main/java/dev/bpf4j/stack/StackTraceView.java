package dev.bpf4j.stack;

import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code BPF_MAP_TYPE_STACK_TRACE} map read from Java: the ips of each stored trace (innermost
 * first) and their symbols — {@code Class.method(File:line)} for Java caller frames, {@code
 * module!symbol+0xoff} for native and JIT code (return addresses named at the call before them).
 */
public final class StackTraceView {
    /** One stored trace: its id (the bucket), its ips and their frames. */
    public record Entry(int id, List<Long> ips, List<Frame> frames) {
        /** The frames one per line, innermost first. */
        public String format() {
            StringBuilder sb = new StringBuilder();
            for (Frame f : frames) sb.append(String.format("0x%016x %s%n", f.ip(), f));
            return sb.toString();
        }
    }

    private final StackTraceMap map;
    private final Symbolizer symbolizer;

    public StackTraceView(StackTraceMap map, Symbolizer symbolizer) {
        this.map = map;
        this.symbolizer = symbolizer;
    }

    public static StackTraceView of(StackTraceMap map) { return new StackTraceView(map, Symbolizer.global()); }

    /** The ips stored under {@code id} (a {@code bpf_get_stackid} result), or empty. */
    public Optional<List<Long>> ips(int id) {
        StackTraceMap.Bucket b = map.bucket(id);
        if (b == null) return Optional.empty();
        List<Long> out = new ArrayList<>(b.nr());
        for (long ip : b.ips()) out.add(ip);
        return Optional.of(out);
    }

    /** The symbolized trace stored under {@code id}, or empty. */
    public Optional<Entry> lookup(int id) {
        return ips(id).map(ips -> new Entry(id, ips, symbolizer.symbolize(new StackTrace(ips, true))));
    }

    /** The symbolized frames stored under {@code id}; empty when the bucket is empty. */
    public List<Frame> frames(int id) { return lookup(id).map(Entry::frames).orElse(List.of()); }

    /** Every stored trace by id, in bucket order. */
    public Map<Integer, Entry> entries() {
        Map<Integer, Entry> out = new LinkedHashMap<>();
        for (int id = 0; id < map.buckets(); id++) lookup(id).ifPresent(e -> out.put(e.id(), e));
        return out;
    }

    /** Deletes the trace under {@code id} (as {@code BPF_MAP_DELETE_ELEM}); false when it was empty. */
    public boolean delete(int id) {
        if (map.bucket(id) == null) return false;
        map.delete(new byte[] {(byte) id, (byte) (id >>> 8), (byte) (id >>> 16), (byte) (id >>> 24)});
        return true;
    }

    @Override public String toString() {
        StringBuilder sb = new StringBuilder();
        entries().forEach((id, e) -> sb.append("stack ").append(id).append(":\n").append(e.format()));
        return sb.length() == 0 ? "(no stacks)" : sb.toString();
    }
}
