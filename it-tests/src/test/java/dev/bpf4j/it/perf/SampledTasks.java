package dev.bpf4j.it.perf;

import dev.bpf4j.api.MapDump;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeMap;

/**
 * The maps of {@code sampled_task.o} (it-tests objects) read back: {@code tasks} as
 * "tgid/pid/comm" → samples, {@code cpus} as cpu → samples (empty slots left out), from the
 * entries of either bpf4j's maps or the kernel's.
 */
final class SampledTasks {
    private SampledTasks() {}

    static final java.nio.file.Path OBJECT = java.nio.file.Path.of("src/test/resources/objects/sampled_task.o");
    static final String PROGRAM = "on_sample";

    /** struct task_key { u32 tgid; u32 pid; char comm[16]; } → "tgid/pid/comm". */
    static TreeMap<String, Long> tasks(List<MapDump.Entry> entries) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (MapDump.Entry e : entries) {
            ByteBuffer k = le(e.key());
            int len = 0;
            while (len < 16 && e.key()[8 + len] != 0) len++;
            out.put(Integer.toUnsignedString(k.getInt(0)) + "/" + Integer.toUnsignedString(k.getInt(4)) + "/"
                    + new String(e.key(), 8, len, StandardCharsets.ISO_8859_1), le(e.values().get(0)).getLong(0));
        }
        return out;
    }

    static TreeMap<Integer, Long> cpus(List<MapDump.Entry> entries) {
        TreeMap<Integer, Long> out = new TreeMap<>();
        for (MapDump.Entry e : entries) {
            long n = le(e.values().get(0)).getLong(0);
            if (n != 0) out.put(le(e.key()).getInt(0), n);
        }
        return out;
    }

    static long total(TreeMap<?, Long> counts) { return counts.values().stream().mapToLong(Long::longValue).sum(); }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }
}
