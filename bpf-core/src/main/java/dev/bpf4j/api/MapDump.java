package dev.bpf4j.api;

import dev.bpf4j.btf.BtfJson;
import dev.bpf4j.btf.MapBtf;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.QueueStackMap;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.maps.MapType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A map's contents as plain data, shaped like {@code bpftool map dump -j}: key/value byte arrays,
 * per-CPU maps with one value per possible CPU, and where the map has BTF ({@link MapBtf}) the
 * {@code formatted} key and value bpftool prints beside them. Keys come out sorted (unsigned
 * bytewise) so two dumps of equal maps are equal. Queues and stacks list their values oldest / top
 * first (read by popping and pushing back); ring buffers list their pending records and consume them.
 * Program arrays and other maps without lookup are empty. A map-in-map's entries carry the name of the
 * inner map beside its id (ids differ from one load to the next, names do not).
 */
public final class MapDump {
    private MapDump() {}

    /**
     * One entry: {@code key} null for queue/stack/ringbuf; {@code values} has one element, or one per CPU;
     * {@code innerMap} the name of the map a map-in-map slot holds (its value is that map's id), else null.
     */
    public record Entry(byte[] key, List<byte[]> values, String innerMap) {
        public Entry(byte[] key, List<byte[]> values) { this(key, values, null); }
    }

    public static List<Entry> entries(BpfMap map) {
        if (map instanceof QueueStackMap q) return queueStack(q);
        if (map instanceof RingBufMap rb) {
            List<Entry> out = new ArrayList<>();
            for (byte[] r : rb.reader().drain()) out.add(new Entry(null, List.of(r)));
            return out;
        }
        switch (map.type()) {
            case PROG_ARRAY: case STACK_TRACE: case XSKMAP: return List.of();
            default: break;
        }
        List<byte[]> keys = new ArrayList<>(map.keyList());
        keys.sort(Comparator.comparing((byte[] k) -> k, Arrays::compareUnsigned));
        List<Entry> out = new ArrayList<>();
        for (byte[] k : keys) {
            Optional<byte[]> v = map.lookup(k);
            if (v.isEmpty()) continue;
            String inner = map instanceof MapOfMaps outer ? outer.inner(k).map(BpfMap::name).orElse("?") : null;
            out.add(new Entry(k, map.type().isPercpu() ? perCpu(map, v.get()) : List.of(v.get()), inner));
        }
        return out;
    }

    private static List<byte[]> perCpu(BpfMap map, byte[] all) {
        int stride = map.definition().valueStride();
        List<byte[]> out = new ArrayList<>();
        for (int cpu = 0; cpu < Cpus.possible(); cpu++) out.add(Arrays.copyOfRange(all, cpu * stride, cpu * stride + map.valueSize()));
        return out;
    }

    private static List<Entry> queueStack(QueueStackMap q) {
        List<byte[]> popped = new ArrayList<>();
        for (Optional<byte[]> v = q.pop(); v.isPresent(); v = q.pop()) popped.add(v.get());
        boolean stack = q.type() == MapType.STACK;
        for (int i = 0; i < popped.size(); i++) q.pushValue(popped.get(stack ? popped.size() - 1 - i : i), 0);
        List<Entry> out = new ArrayList<>();
        for (byte[] v : popped) out.add(new Entry(null, List.of(v)));
        return out;
    }

    /** {@code {"name": ..., "entries": [{"key": ["0x01", ...], "value": [...]}, ...]}}; per-CPU: {@code "values": [{"cpu": 0, "value": [...]}]}. */
    public static String json(BpfMap map) { return json(map.name(), map.type().isPercpu(), entries(map)); }

    /** As {@link #json(BpfMap)}, with bpftool's {@code formatted} key and value of each entry when {@code types} is not null. */
    public static String json(BpfMap map, MapBtf types) { return json(map.name(), map.type().isPercpu(), entries(map), types); }

    /** As {@link #json(BpfMap)}, for entries read elsewhere (a map in the kernel): {@code percpu} selects the per-CPU shape. */
    public static String json(String name, boolean percpu, List<Entry> entries) { return json(name, percpu, entries, null); }

    /**
     * As {@link #json(String, boolean, List)}, each keyed entry with {@code "formatted"} decoded by
     * {@code types} (null: none); an entry whose bytes do not decode gets {@code "formatted_error"}.
     */
    public static String json(String name, boolean percpu, List<Entry> entries, MapBtf types) {
        StringBuilder b = new StringBuilder("{\"name\": \"").append(name).append("\", \"entries\": [");
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (i > 0) b.append(", ");
            b.append('{');
            if (e.key() != null) b.append("\"key\": ").append(bytes(e.key())).append(", ");
            if (e.innerMap() != null) { // the value is a map id, which differs between loads: name the map instead
                b.append("\"inner_map\": \"").append(e.innerMap()).append("\"}");
                continue;
            }
            if (percpu) {
                b.append("\"values\": [");
                for (int cpu = 0; cpu < e.values().size(); cpu++) {
                    if (cpu > 0) b.append(", ");
                    b.append("{\"cpu\": ").append(cpu).append(", \"value\": ").append(bytes(e.values().get(cpu))).append('}');
                }
                b.append(']');
            } else {
                b.append("\"value\": ").append(bytes(e.values().get(0)));
            }
            if (types != null && e.key() != null) formatted(types, e, percpu, b);
            b.append('}');
        }
        return b.append("]}").toString();
    }

    private static void formatted(MapBtf types, Entry e, boolean percpu, StringBuilder b) {
        try {
            String f = types.formatted(e.key(), e.values(), percpu);
            b.append(", \"formatted\": ").append(f);
        } catch (BpfException ex) {
            b.append(", \"formatted_error\": ");
            BtfJson.string(String.valueOf(ex.getMessage()), b);
        }
    }

    private static String bytes(byte[] v) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < v.length; i++) {
            if (i > 0) b.append(", ");
            b.append(String.format("\"0x%02x\"", v[i] & 0xff));
        }
        return b.append(']').toString();
    }
}
