package dev.bpf4j.cli.profile;

import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.stack.StackTraceView;
import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.profile.FrameNames;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The stacks a profile program counted, read from its maps as BCC's profile.py reads them: a
 * {@code STACK_TRACE} map and a hash map from stack id (u32 key) to sample count (u64 value).
 * Each id's ips are named innermost first ({@code [unknown]} where no symbol is known) and folded
 * root first; a negative id — a failed {@code bpf_get_stackid} — is the {@value #MISSED} bucket.
 */
public record MapStacks(TreeMap<Integer, Long> counts, TreeMap<Integer, List<Long>> ips) {
    /** BCC's "[Missed User Stack]": samples whose stack id failed (collision, no stack, map full). */
    public static final String MISSED = "[missed stack]";

    /** The stack map and the counting map of {@code maps}, when it has exactly one of each. */
    public static Optional<MapStacks> read(List<BpfMap> maps) {
        List<BpfMap> stackMaps = maps.stream().filter(m -> m.type() == MapType.STACK_TRACE).toList();
        List<BpfMap> counters = maps.stream().filter(m -> (m.type() == MapType.HASH || m.type() == MapType.LRU_HASH)
                && m.keySize() == 4 && m.valueSize() == 8).toList();
        if (stackMaps.size() != 1 || counters.size() != 1) return Optional.empty();
        StackTraceView view = StackTraceView.of((StackTraceMap) stackMaps.get(0));
        TreeMap<Integer, Long> counts = new TreeMap<>();
        TreeMap<Integer, List<Long>> ips = new TreeMap<>();
        BpfMap c = counters.get(0);
        for (byte[] key : c.keyList()) {
            Optional<byte[]> value = c.lookup(key);
            if (value.isEmpty()) continue;
            int id = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getInt();
            counts.put(id, ByteBuffer.wrap(value.get()).order(ByteOrder.LITTLE_ENDIAN).getLong());
            if (id >= 0) ips.put(id, view.ips(id).orElse(List.of()));
        }
        return Optional.of(new MapStacks(counts, ips));
    }

    /** Samples counted, the missed ones included. */
    public long total() { return counts.values().stream().mapToLong(Long::longValue).sum(); }

    /** Samples whose stack id failed. */
    public long missed() { return counts.entrySet().stream().filter(e -> e.getKey() < 0).mapToLong(e -> e.getValue()).sum(); }

    /** Folded root first, each frame named by {@code symbolizer}; ids with the same names added up. */
    public FoldedStacks folded(Symbolizer symbolizer) {
        FoldedStacks out = new FoldedStacks();
        counts.forEach((id, n) -> {
            if (id < 0) {
                out.add(List.of(MISSED), n);
                return;
            }
            List<Frame> frames = symbolizer.symbolize(new StackTrace(ips.getOrDefault(id, List.of()), true));
            List<String> rootFirst = new ArrayList<>(frames.size());
            for (int i = frames.size() - 1; i >= 0; i--) rootFirst.add(FrameNames.of(frames.get(i)));
            out.add(rootFirst.isEmpty() ? List.of(MISSED) : rootFirst, n);
        });
        return out;
    }

    /** One line per id with its ips and count: what two engines must agree on. */
    public List<String> byId() {
        List<String> out = new ArrayList<>();
        counts.forEach((id, n) -> out.add("stack " + id + " " + (id < 0 ? MISSED : hex(ips.getOrDefault(id, List.of()))) + " " + n));
        return out;
    }

    private static String hex(List<Long> ips) {
        StringBuilder sb = new StringBuilder("[");
        for (long ip : ips) sb.append(sb.length() > 1 ? "," : "").append(Long.toHexString(ip));
        return sb.append(']').toString();
    }
}
