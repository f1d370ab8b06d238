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
 * {@code STACK_TRACE} map and a hash map to a sample count (u64 value) from either a stack id
 * (u32 key: {@code profile.o}) or a thread and stack id ({@link ThreadStack}'s 28-byte key:
 * {@code profile_threads.o}). Each id's ips are named innermost first ({@code [unknown]} where no
 * symbol is known) and folded root first, under the thread's {@code comm-tid} frame for a per-thread
 * key; a negative id — a failed {@code bpf_get_stackid} — is the {@value #MISSED} bucket.
 *
 * @param counts samples per stack id (per-thread counts added up)
 * @param byThread samples per thread and stack id; empty for a stack-id-keyed map
 */
public record MapStacks(TreeMap<Integer, Long> counts, TreeMap<Integer, List<Long>> ips, TreeMap<ThreadStack, Long> byThread) {
    /**
     * A per-thread key, BCC profile.py's {@code key_t} (pid + stack id + comm) with the thread id:
     * {@code struct { u32 tgid; u32 pid; s32 user_stack_id; char comm[16]; }}.
     */
    public record ThreadStack(int tgid, int tid, String comm, int id) implements Comparable<ThreadStack> {
        public static final int SIZE = 28;

        static ThreadStack of(byte[] key) {
            ByteBuffer b = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
            int tgid = b.getInt(), tid = b.getInt(), id = b.getInt();
            int len = 0;
            while (len < 16 && key[12 + len] != 0) len++;
            return new ThreadStack(tgid, tid, new String(key, 12, len, java.nio.charset.StandardCharsets.UTF_8), id);
        }

        /** The root frame of this thread's stacks: {@code comm-tid}, as BCC and perf name a task. */
        public String root() { return comm + "-" + tid; }

        @Override public int compareTo(ThreadStack o) {
            int c = Integer.compare(tid, o.tid);
            if (c == 0) c = comm.compareTo(o.comm);
            if (c == 0) c = Integer.compare(tgid, o.tgid);
            return c != 0 ? c : Integer.compare(id, o.id);
        }
    }

    /** BCC's "[Missed User Stack]": samples whose stack id failed (collision, no stack, map full). */
    public static final String MISSED = "[missed stack]";

    /** The stack map and the counting map of {@code maps}, when it has exactly one of each. */
    public static Optional<MapStacks> read(List<BpfMap> maps) {
        List<BpfMap> stackMaps = maps.stream().filter(m -> m.type() == MapType.STACK_TRACE).toList();
        List<BpfMap> counters = maps.stream().filter(m -> (m.type() == MapType.HASH || m.type() == MapType.LRU_HASH)
                && (m.keySize() == 4 || m.keySize() == ThreadStack.SIZE) && m.valueSize() == 8).toList();
        if (stackMaps.size() != 1 || counters.size() != 1) return Optional.empty();
        StackTraceView view = StackTraceView.of((StackTraceMap) stackMaps.get(0));
        BpfMap c = counters.get(0);
        java.util.LinkedHashMap<byte[], byte[]> entries = new java.util.LinkedHashMap<>();
        for (byte[] key : c.keyList()) c.lookup(key).ifPresent(v -> entries.put(key, v));
        return Optional.of(of(entries, id -> view.ips(id).orElse(List.of())));
    }

    /**
     * From a counting map's entries (a u32 stack id or a {@link ThreadStack} key → u64) and a lookup
     * of a stack id's ips, innermost first: how the maps of Linux's copy are read too.
     */
    public static MapStacks of(java.util.Map<byte[], byte[]> entries, java.util.function.IntFunction<List<Long>> stack) {
        TreeMap<Integer, Long> counts = new TreeMap<>();
        TreeMap<Integer, List<Long>> ips = new TreeMap<>();
        TreeMap<ThreadStack, Long> byThread = new TreeMap<>();
        for (java.util.Map.Entry<byte[], byte[]> entry : entries.entrySet()) {
            byte[] key = entry.getKey();
            long n = ByteBuffer.wrap(entry.getValue()).order(ByteOrder.LITTLE_ENDIAN).getLong();
            int id;
            if (key.length == ThreadStack.SIZE) {
                ThreadStack t = ThreadStack.of(key);
                byThread.put(t, n);
                id = t.id();
            } else {
                id = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getInt();
            }
            counts.merge(id, n, Long::sum);
            if (id >= 0) ips.computeIfAbsent(id, stack::apply);
        }
        return new MapStacks(counts, ips, byThread);
    }

    /** Whether the counts are per thread ({@link ThreadStack} keys). */
    public boolean perThread() { return !byThread.isEmpty(); }

    /** Samples counted, the missed ones included. */
    public long total() { return counts.values().stream().mapToLong(Long::longValue).sum(); }

    /** Samples whose stack id failed. */
    public long missed() { return counts.entrySet().stream().filter(e -> e.getKey() < 0).mapToLong(e -> e.getValue()).sum(); }

    /** Folded root first, each frame named by {@code symbolizer}; ids with the same names added up. */
    public FoldedStacks folded(Symbolizer symbolizer) {
        FoldedStacks out = new FoldedStacks();
        if (perThread()) {
            byThread.forEach((t, n) -> out.add(withRoot(t.root(), frames(t.id(), symbolizer)), n));
        } else {
            counts.forEach((id, n) -> out.add(frames(id, symbolizer), n));
        }
        return out;
    }

    /** Stack {@code id} named root first; {@value #MISSED} for a failed or empty one. */
    private List<String> frames(int id, Symbolizer symbolizer) {
        if (id < 0) return List.of(MISSED);
        List<Frame> frames = symbolizer.symbolize(new StackTrace(ips.getOrDefault(id, List.of()), true));
        List<String> rootFirst = new ArrayList<>(frames.size());
        for (int i = frames.size() - 1; i >= 0; i--) rootFirst.add(FrameNames.of(frames.get(i)));
        return rootFirst.isEmpty() ? List.of(MISSED) : rootFirst;
    }

    private static List<String> withRoot(String root, List<String> frames) {
        List<String> out = new ArrayList<>(frames.size() + 1);
        out.add(root);
        out.addAll(frames);
        return out;
    }

    /** One line per id with its ips and count: what two engines must agree on. */
    public List<String> byId() {
        List<String> out = new ArrayList<>();
        counts.forEach((id, n) -> out.add("stack " + id + " " + (id < 0 ? MISSED : hex(ips.getOrDefault(id, List.of()))) + " " + n));
        byThread.forEach((t, n) -> out.add("thread " + t.tgid() + "/" + t.root() + " stack " + t.id() + " " + n));
        return out;
    }

    private static String hex(List<Long> ips) {
        StringBuilder sb = new StringBuilder("[");
        for (long ip : ips) sb.append(sb.length() > 1 ? "," : "").append(Long.toHexString(ip));
        return sb.append(']').toString();
    }
}
