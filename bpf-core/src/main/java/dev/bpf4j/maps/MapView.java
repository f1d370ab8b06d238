package dev.bpf4j.maps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A typed view of a keyed map, e.g. {@code MapView.of(map, Codec.U32, Codec.U64)}. Same semantics and
 * errors as the byte[] API; per-CPU maps decode one value per possible CPU ({@link #getPerCpu}).
 */
public final class MapView<K, V> {
    private final BpfMap map;
    private final Codec<K> keys;
    private final Codec<V> values;

    private MapView(BpfMap map, Codec<K> keys, Codec<V> values) {
        if (keys.size() != map.keySize() || values.size() != map.valueSize()) {
            throw new IllegalArgumentException(map.describe() + " has key/value sizes " + map.keySize() + "/" + map.valueSize()
                    + ", the codecs encode " + keys.size() + "/" + values.size());
        }
        this.map = map;
        this.keys = keys;
        this.values = values;
    }

    public static <K, V> MapView<K, V> of(BpfMap map, Codec<K> keys, Codec<V> values) { return new MapView<>(map, keys, values); }

    public BpfMap map() { return map; }

    /** The value; a per-CPU map refuses, as one CPU's value would mislead: use {@link #getPerCpu}. */
    public Optional<V> get(K key) {
        requireNotPercpu("get");
        return map.lookup(keys.encode(key)).map(b -> values.decode(b, 0));
    }

    /** Every possible CPU's value, in CPU order (one element for ordinary maps). */
    public Optional<List<V>> getPerCpu(K key) {
        return map.lookup(keys.encode(key)).map(b -> {
            int stride = map.type().isPercpu() ? map.definition().valueStride() : b.length;
            List<V> out = new ArrayList<>();
            for (int off = 0; off + values.size() <= b.length; off += stride) out.add(values.decode(b, off));
            return out;
        });
    }

    /** Update with {@code BPF_ANY}; per-CPU maps get {@code value} on every CPU. */
    public void put(K key, V value) { put(key, value, MapFlags.BPF_ANY); }

    public void put(K key, V value, long flags) {
        byte[] v = values.encode(value);
        if (map.type().isPercpu()) {
            int stride = map.definition().valueStride();
            byte[] all = new byte[map.javaValueSize()];
            for (int off = 0; off < all.length; off += stride) System.arraycopy(v, 0, all, off, v.length);
            v = all;
        }
        map.update(keys.encode(key), v, flags);
    }

    /** Deletes {@code key}; false when it was absent ({@code -ENOENT}). */
    public boolean remove(K key) {
        try {
            map.delete(keys.encode(key));
            return true;
        } catch (BpfMapException e) {
            if (e.errno() == Errno.ENOENT) return false;
            throw e;
        }
    }

    /** A copy of the map's current contents, in iteration order; a per-CPU map refuses ({@link #snapshotPerCpu}). */
    public Map<K, V> snapshot() {
        requireNotPercpu("snapshot");
        Map<K, V> out = new LinkedHashMap<>();
        for (byte[] k : map.keys()) map.lookup(k).ifPresent(v -> out.put(keys.decode(k, 0), values.decode(v, 0)));
        return out;
    }

    /** A copy of the map's current contents with every CPU's value, in iteration order. */
    public Map<K, List<V>> snapshotPerCpu() {
        Map<K, List<V>> out = new LinkedHashMap<>();
        for (byte[] k : map.keys()) {
            K key = keys.decode(k, 0);
            getPerCpu(key).ifPresent(v -> out.put(key, v));
        }
        return out;
    }

    private void requireNotPercpu(String op) {
        if (map.type().isPercpu()) {
            throw new BpfMapException(Errno.EINVAL, map.describe() + " is per-CPU: " + op + " would see CPU 0's value only; use getPerCpu");
        }
    }
}
