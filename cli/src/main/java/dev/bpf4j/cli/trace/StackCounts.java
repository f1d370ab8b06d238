package dev.bpf4j.cli.trace;

import dev.bpf4j.jit.probe.RootCall;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.stack.StackTraceView;
import dev.bpf4j.unwind.Frame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The stacks a stackcount-style program counted: a {@code STACK_TRACE} map and a hash map from
 * stack id (u32 key) to count (u64 value), read back as {@link Stack}s and printed folded, one line
 * per distinct stack, {@code root;...;leaf count}, as flamegraph.pl and speedscope read them.
 *
 * <p>Frames are named by their symbol ({@code module+0xoff} or {@code [unknown]} without one). The
 * entry was called through {@link RootCall}, so every stored stack ends with the thunk's frame
 * ({@value RootCall#SYMBOL}); it is dropped: the root of each folded stack is the entry function.
 * Two stored stacks that differ only in return addresses inside one function (two call sites of
 * the same callee) fold into one line, their counts added. A negative key (the bundled program
 * counts a failed {@code bpf_get_stackid} under its errno) prints as {@code [stackid error -N]}.
 */
public final class StackCounts {
    /** One counted stack id: its frames innermost first (the root thunk dropped), or an error key. */
    public record Stack(int id, List<String> frames, long count) {
        public boolean lost() { return id < 0; }

        /** {@code root;...;leaf}. */
        public String folded() {
            if (lost()) return "[stackid error " + id + "]";
            List<String> rootFirst = new ArrayList<>(frames);
            java.util.Collections.reverse(rootFirst);
            return String.join(";", rootFirst);
        }
    }

    private final List<Stack> stacks;

    private StackCounts(List<Stack> stacks) { this.stacks = List.copyOf(stacks); }

    /** The stack map and the counting map of {@code maps}, when it has exactly one of each. */
    public static Optional<StackCounts> read(List<BpfMap> maps) {
        List<BpfMap> stackMaps = maps.stream().filter(m -> m.type() == MapType.STACK_TRACE).toList();
        List<BpfMap> counters = maps.stream().filter(StackCounts::countsById).toList();
        if (stackMaps.size() != 1 || counters.size() != 1) return Optional.empty();
        return Optional.of(read((StackTraceMap) stackMaps.get(0), counters.get(0)));
    }

    /** Whether {@code m} can count stack ids: a (non per-CPU) hash map with u32 keys and u64 values. */
    public static boolean countsById(BpfMap m) {
        return (m.type() == MapType.HASH || m.type() == MapType.LRU_HASH) && m.keySize() == 4 && m.valueSize() == 8;
    }

    public static StackCounts read(StackTraceMap stackMap, BpfMap counts) {
        StackTraceView view = StackTraceView.of(stackMap);
        List<Stack> out = new ArrayList<>();
        for (byte[] key : counts.keyList()) {
            Optional<byte[]> value = counts.lookup(key);
            if (value.isEmpty()) continue;
            int id = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getInt();
            long count = ByteBuffer.wrap(value.get()).order(ByteOrder.LITTLE_ENDIAN).getLong();
            out.add(new Stack(id, id < 0 ? List.of() : names(view.frames(id)), count));
        }
        out.sort(java.util.Comparator.comparingInt(Stack::id));
        return new StackCounts(out);
    }

    private static List<String> names(List<Frame> frames) {
        List<String> out = new ArrayList<>();
        for (Frame f : frames) out.add(f.symbol() != null ? f.symbol() : f.toString());
        // The last frame is the root thunk's when the walk reached it (a trace cut by the depth limit does not).
        if (!out.isEmpty() && out.get(out.size() - 1).equals(RootCall.SYMBOL)) out.remove(out.size() - 1);
        return out;
    }

    /** Every counted id, by id. */
    public List<Stack> stacks() { return stacks; }

    /** Counts by folded stack (stacks with the same frames added), sorted by the folded text. */
    public Map<String, Long> folded() {
        Map<String, Long> out = new TreeMap<>();
        for (Stack s : stacks) out.merge(s.folded(), s.count(), Long::sum);
        return out;
    }

    /** The folded lines: {@code root;...;leaf count}. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        folded().forEach((stack, n) -> out.add(stack + " " + n));
        return out;
    }

    /** One line per stack id with its frames and count: what two engines must agree on. */
    public List<String> byId() {
        List<String> out = new ArrayList<>();
        for (Stack s : stacks) out.add("stack " + s.id() + " " + s.folded() + " " + s.count());
        return out;
    }
}
