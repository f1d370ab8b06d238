package dev.bpf4j.maps;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfRecords;
import dev.bpf4j.btf.BtfValue;
import dev.bpf4j.btf.BtfValues;
import dev.bpf4j.runtime.BpfException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A keyed map read and written by its BTF key and value types (the kernel's {@code btf_key_type_id} /
 * {@code btf_value_type_id}): keys and values in as Java values ({@link BtfValues#encode} lists what
 * each type takes), out as {@link BtfValue} trees, or as records through {@link #as}. A per-CPU map has
 * one value per possible CPU: {@link #getPerCpu} returns them all, {@link #sum} adds them up, and
 * {@link #get} refuses (it cannot pick a CPU for you). Without a BTF key type (global-data maps,
 * {@code key_size}-only definitions) a key is an unsigned integer of the key's size, or its bytes.
 */
public final class TypedMap {
    private final BpfMap map;
    private final Btf btf;
    private final int keyTypeId, valueTypeId;

    private TypedMap(BpfMap map, Btf btf, int keyTypeId, int valueTypeId) {
        if (btf == null || valueTypeId == 0) throw new BpfException(map.describe() + " has no BTF value type: it can only be read as bytes");
        if (keyTypeId != 0 && btf.resolveSize(keyTypeId) != map.keySize()) {
            throw new BpfException(map.describe() + ": BTF key type " + BtfValues.describe(btf, keyTypeId) + " is " + btf.resolveSize(keyTypeId)
                    + " bytes, the key " + map.keySize());
        }
        if (btf.resolveSize(valueTypeId) != map.valueSize()) {
            throw new BpfException(map.describe() + ": BTF value type " + BtfValues.describe(btf, valueTypeId) + " is " + btf.resolveSize(valueTypeId)
                    + " bytes, the value " + map.valueSize());
        }
        this.map = map;
        this.btf = btf;
        this.keyTypeId = keyTypeId;
        this.valueTypeId = valueTypeId;
    }

    /** {@code keyTypeId} may be 0 (no BTF for the key); {@code valueTypeId} may not. */
    public static TypedMap of(BpfMap map, Btf btf, int keyTypeId, int valueTypeId) { return new TypedMap(map, btf, keyTypeId, valueTypeId); }

    public BpfMap map() { return map; }

    public Btf btf() { return btf; }

    public int keyTypeId() { return keyTypeId; }

    public int valueTypeId() { return valueTypeId; }

    /** The value of {@code key}; a per-CPU map refuses ({@link #getPerCpu}, {@link #sum}). */
    public Optional<BtfValue> get(Object key) {
        requireNotPercpu("get");
        return map.lookup(encodeKey(key)).map(this::decodeValue);
    }

    /** Every possible CPU's value in CPU order (one element for a map that is not per-CPU). */
    public Optional<List<BtfValue>> getPerCpu(Object key) { return map.lookup(encodeKey(key)).map(this::perCpu); }

    /** A per-CPU value summed over the CPUs ({@link PerCpuSum}); the value itself for other maps. */
    public Optional<BtfValue> sum(Object key) { return getPerCpu(key).map(PerCpuSum::sum); }

    /** Update with {@code BPF_ANY}; a per-CPU map gets {@code value} on every CPU. */
    public void put(Object key, Object value) { put(key, value, MapFlags.BPF_ANY); }

    public void put(Object key, Object value, long flags) {
        byte[] v = encodeValue(value);
        if (map.type().isPercpu()) {
            int stride = map.definition().valueStride();
            byte[] all = new byte[map.javaValueSize()];
            for (int off = 0; off < all.length; off += stride) System.arraycopy(v, 0, all, off, v.length);
            v = all;
        }
        map.update(encodeKey(key), v, flags);
    }

    /** A per-CPU update with one value per possible CPU, in CPU order. */
    public void putPerCpu(Object key, List<?> values, long flags) {
        if (!map.type().isPercpu()) throw new BpfException(map.describe() + " is not per-CPU: use put");
        if (values.size() != Cpus.possible()) {
            throw new BpfException(map.describe() + ": " + values.size() + " values given, there are " + Cpus.possible() + " possible CPUs");
        }
        int stride = map.definition().valueStride();
        byte[] all = new byte[map.javaValueSize()];
        for (int cpu = 0; cpu < values.size(); cpu++) {
            byte[] v = BtfValues.encode(btf, valueTypeId, values.get(cpu), map.describe() + " value of CPU " + cpu);
            System.arraycopy(v, 0, all, cpu * stride, v.length);
        }
        map.update(encodeKey(key), all, flags);
    }

    /** Deletes {@code key}; false when it was absent ({@code -ENOENT}). */
    public boolean remove(Object key) {
        try {
            map.delete(encodeKey(key));
            return true;
        } catch (BpfMapException e) {
            if (e.errno() == Errno.ENOENT) return false;
            throw e;
        }
    }

    /** One entry: its key and its value, or one value per CPU. */
    public record Entry(BtfValue key, List<BtfValue> values) {
        public BtfValue value() { return values.get(0); }
    }

    /** The current contents, keys in iteration order (keys deleted meanwhile are skipped). */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        for (byte[] k : map.keyList()) map.lookup(k).ifPresent(v -> out.add(new Entry(decodeKey(k), perCpu(v))));
        return out;
    }

    /**
     * A typed {@link MapView} whose keys and values are {@code keyType} and {@code valueType}: records
     * matching the BTF structs by member names ({@link BtfRecords}), numbers, enums, {@link BtfValue}...
     */
    public <K, V> MapView<K, V> as(Class<K> keyType, Class<V> valueType) {
        if (keyTypeId != 0) BtfRecords.check(btf, keyTypeId, keyType, map.describe() + " key");
        BtfRecords.check(btf, valueTypeId, valueType, map.describe() + " value");
        Codec<K> keys = new Codec<>() {
            @Override public int size() { return map.keySize(); }
            @Override public byte[] encode(K k) { return encodeKey(k); }
            @Override public K decode(byte[] b, int off) { return BtfRecords.convert(decodeKey(Arrays.copyOfRange(b, off, off + map.keySize())), keyType, map.describe() + " key"); }
        };
        Codec<V> values = new Codec<>() {
            @Override public int size() { return map.valueSize(); }
            @Override public byte[] encode(V v) { return encodeValue(v); }
            @Override public V decode(byte[] b, int off) { return BtfRecords.convert(BtfValues.decode(btf, valueTypeId, b, off), valueType, map.describe() + " value"); }
        };
        return MapView.of(map, keys, values);
    }

    public byte[] encodeKey(Object key) {
        if (keyTypeId != 0) return BtfValues.encode(btf, keyTypeId, key, map.describe() + " key");
        int size = map.keySize();
        if (key instanceof byte[] raw) {
            if (raw.length != size) throw new BpfException(map.describe() + " key: " + size + " bytes, " + raw.length + " given");
            return raw.clone();
        }
        BigInteger v;
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) v = BigInteger.valueOf(((Number) key).longValue());
        else if (key instanceof BigInteger b) v = b;
        else if (key instanceof BtfValue.Int i) v = i.value();
        else throw new BpfException(map.describe() + " key has no BTF type: give an integer or " + size + " bytes, not " + key);
        if (size > 16 || v.signum() < 0 || v.bitLength() > size * 8) {
            throw new BpfException(map.describe() + " key: " + v + " does not fit an unsigned " + size + "-byte key");
        }
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) out[i] = v.shiftRight(8 * i).byteValue();
        return out;
    }

    public byte[] encodeValue(Object value) { return BtfValues.encode(btf, valueTypeId, value, map.describe() + " value"); }

    public BtfValue decodeKey(byte[] key) {
        if (keyTypeId != 0) return BtfValues.decode(btf, keyTypeId, key, 0);
        byte[] be = new byte[key.length + 1];
        for (int i = 0; i < key.length; i++) be[key.length - i] = key[i];
        return new BtfValue.Int(new BigInteger(be), Math.max(1, Math.min(128, key.length * 8)), false, false);
    }

    /** One value's bytes (not the per-CPU array) as its BTF type. */
    public BtfValue decodeValue(byte[] value) { return BtfValues.decode(btf, valueTypeId, value, 0); }

    private List<BtfValue> perCpu(byte[] all) {
        if (!map.type().isPercpu()) return List.of(decodeValue(all));
        int stride = map.definition().valueStride();
        List<BtfValue> out = new ArrayList<>();
        for (int off = 0; off + map.valueSize() <= all.length; off += stride) out.add(BtfValues.decode(btf, valueTypeId, all, off));
        return out;
    }

    private void requireNotPercpu(String op) {
        if (map.type().isPercpu()) {
            throw new BpfException(map.describe() + " is per-CPU: " + op + " would see one CPU's value; use getPerCpu or sum");
        }
    }
}
