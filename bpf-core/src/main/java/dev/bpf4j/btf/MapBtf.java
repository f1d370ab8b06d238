package dev.bpf4j.btf;

/**
 * A map's BTF, as {@code BPF_MAP_CREATE} receives it: the object's types and the ids of the key and
 * value types ({@code keyTypeId} 0 when the key has none, as for global-data maps).
 */
public record MapBtf(Btf btf, int keyTypeId, int valueTypeId) {
    /** The map's BTF, or null when there is none to decode its values with. */
    public static MapBtf of(Btf btf, int keyTypeId, int valueTypeId) {
        return btf == null || valueTypeId == 0 ? null : new MapBtf(btf, keyTypeId, valueTypeId);
    }

    /**
     * bpftool's {@code formatted} object of one entry: {@code {"key": K, "value": V}}, per-CPU
     * {@code {"key": K, "values": [{"cpu": 0, "value": V}, ...]}}; no {@code "key"} without a key type.
     */
    public String formatted(byte[] key, java.util.List<byte[]> values, boolean percpu) {
        StringBuilder b = new StringBuilder("{");
        if (keyTypeId != 0 && key != null) {
            b.append("\"key\": ");
            BtfJson.write(BtfValues.decode(btf, keyTypeId, key, 0), b);
            b.append(", ");
        }
        if (!percpu) {
            b.append("\"value\": ");
            BtfJson.write(BtfValues.decode(btf, valueTypeId, values.get(0), 0), b);
        } else {
            b.append("\"values\": [");
            for (int cpu = 0; cpu < values.size(); cpu++) {
                if (cpu > 0) b.append(", ");
                b.append("{\"cpu\": ").append(cpu).append(", \"value\": ");
                BtfJson.write(BtfValues.decode(btf, valueTypeId, values.get(cpu), 0), b);
                b.append('}');
            }
            b.append(']');
        }
        return b.append('}').toString();
    }
}
