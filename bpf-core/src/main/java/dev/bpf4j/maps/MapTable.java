package dev.bpf4j.maps;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The maps of one loaded object and their <em>handles</em>: the value an {@code lddw} with
 * {@code BPF_PSEUDO_MAP_FD} is rewritten to, like the kernel's {@code struct bpf_map *}. Each handle is
 * the address of a {@value #HANDLE_SIZE}-byte native descriptor that stays put while the table is open:
 *
 * <pre>
 *  +0  u32 map type id     +4  u32 key_size      +8  u32 value_size   +12 u32 max_entries
 *  +16 u32 map_flags       +20 u32 value stride  +24 u64 values base (ARRAY only, else 0)
 *  +32 u32 index in table  +36 s32 bpf_spin_lock offset in the value (-1: none)
 * </pre>
 *
 * Inner maps of a map-in-map that are not in the table get a descriptor of their own the first time a
 * program looks them up ({@link #handleFor}, index -1), freed with the table.
 * The descriptor lets a JIT inline an array lookup ({@code index < max_entries ? base + index * stride : 0});
 * programs never get it as accessible memory. Helpers turn a handle back into its map with {@link #resolve}.
 */
public final class MapTable implements AutoCloseable {
    public static final int HANDLE_SIZE = 64;
    public static final int OFF_TYPE = 0, OFF_KEY_SIZE = 4, OFF_VALUE_SIZE = 8, OFF_MAX_ENTRIES = 12,
            OFF_FLAGS = 16, OFF_VALUE_STRIDE = 20, OFF_VALUES_BASE = 24, OFF_INDEX = 32, OFF_SPIN_LOCK = 36;

    private final List<BpfMap> maps;
    private final Map<String, Integer> byName = new LinkedHashMap<>();
    private final long block;
    /** Handles of maps outside the table (inner maps), both ways; guarded by {@code this} for writes. */
    private final java.util.concurrent.ConcurrentHashMap<Long, BpfMap> extraByHandle = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.IdentityHashMap<BpfMap, Long> extraHandles = new java.util.IdentityHashMap<>();
    private volatile boolean closed;

    private MapTable(List<BpfMap> maps) {
        this.maps = List.copyOf(maps);
        for (int i = 0; i < this.maps.size(); i++) {
            if (byName.putIfAbsent(this.maps.get(i).name(), i) != null) {
                throw new IllegalArgumentException("two maps named '" + this.maps.get(i).name() + "'");
            }
        }
        this.block = NativeMemory.allocate((long) Math.max(1, this.maps.size()) * HANDLE_SIZE);
        for (int i = 0; i < this.maps.size(); i++) describe(i);
    }

    /** A table owning {@code maps} (closing the table closes them). */
    public static MapTable of(List<? extends BpfMap> maps) { return new MapTable(new ArrayList<>(maps)); }

    /** Creates one map per definition, in order; on failure closes those already made. */
    public static MapTable create(List<MapDefinition> defs) {
        List<BpfMap> made = new ArrayList<>();
        try {
            for (MapDefinition d : defs) made.add(Maps.create(d));
            return new MapTable(made);
        } catch (RuntimeException e) {
            made.forEach(BpfMap::close);
            throw e;
        }
    }

    private void describe(int i) { describe(block + (long) i * HANDLE_SIZE, maps.get(i), i); }

    private static void describe(long h, BpfMap m, int i) {
        MapDefinition d = m.definition();
        NativeMemory.putInt(h + OFF_TYPE, d.type().id());
        NativeMemory.putInt(h + OFF_KEY_SIZE, d.keySize());
        NativeMemory.putInt(h + OFF_VALUE_SIZE, d.valueSize());
        NativeMemory.putInt(h + OFF_MAX_ENTRIES, d.maxEntries());
        NativeMemory.putInt(h + OFF_FLAGS, d.flags());
        NativeMemory.putInt(h + OFF_VALUE_STRIDE, d.valueStride());
        NativeMemory.putLong(h + OFF_VALUES_BASE, m instanceof ArrayMap && d.type() == MapType.ARRAY ? ((ArrayMap) m).valuesBase() : 0);
        NativeMemory.putInt(h + OFF_INDEX, i);
        NativeMemory.putInt(h + OFF_SPIN_LOCK, d.spinLockOffset());
    }

    public int size() { return maps.size(); }

    public List<BpfMap> maps() { return Collections.unmodifiableList(maps); }

    public BpfMap map(int index) { return maps.get(index); }

    public Optional<BpfMap> map(String name) {
        Integer i = byName.get(name);
        return i == null ? Optional.empty() : Optional.of(maps.get(i));
    }

    /** The handle of the {@code index}-th map (the value of {@code lddw rX, map_by_idx(index)}). */
    public long handle(int index) {
        checkOpen();
        if (index < 0 || index >= maps.size()) throw new IndexOutOfBoundsException("no map #" + index + " in a table of " + maps.size());
        return block + (long) index * HANDLE_SIZE;
    }

    public long handle(String name) {
        Integer i = byName.get(name);
        if (i == null) throw new IllegalArgumentException("no map named '" + name + "' (maps: " + byName.keySet() + ")");
        return handle(i);
    }

    public long handle(BpfMap map) {
        int i = maps.indexOf(map);
        if (i < 0) throw new IllegalArgumentException(map.describe() + " is not in this table");
        return handle(i);
    }

    /**
     * The handle a program gets for {@code map} (what {@code bpf_map_lookup_elem} on a map-in-map returns):
     * its table handle, or for a map outside the table a descriptor made on first use.
     */
    public long handleFor(BpfMap map) {
        Integer i = byName.get(map.name());
        if (i != null && maps.get(i) == map) return handle(i);
        synchronized (this) {
            checkOpen();
            Long h = extraHandles.get(map);
            if (h == null) {
                h = NativeMemory.allocate(HANDLE_SIZE);
                describe(h, map, -1);
                extraHandles.put(map, h);
                extraByHandle.put(h, map);
            }
            return h;
        }
    }

    /** The map behind {@code handle}, or empty when it is not a handle of this table. */
    public Optional<BpfMap> find(long handle) {
        if (closed) return Optional.empty();
        long off = handle - block;
        if (off < 0 || off % HANDLE_SIZE != 0 || off / HANDLE_SIZE >= maps.size()) {
            return extraByHandle.isEmpty() ? Optional.empty() : Optional.ofNullable(extraByHandle.get(handle));
        }
        return Optional.of(maps.get((int) (off / HANDLE_SIZE)));
    }

    /** For helpers: the map behind argument {@code arg} ({@code handle}), or a BAD_HELPER_ARGUMENT error. */
    public BpfMap resolve(HelperCall call, String helper, long handle) {
        BpfMap m = find(handle).orElseThrow(() -> call.badArgument(String.format(
                "%s: r1 = 0x%x is not a map of this program (maps: %s)", helper, handle, byName.keySet())));
        if (!m.isOpen()) throw call.badArgument(helper + ": " + m.describe() + " is closed");
        return m;
    }

    /** Like {@link #resolve(HelperCall, String, long)}, also requiring the map's class. */
    public <T extends BpfMap> T resolve(HelperCall call, String helper, long handle, Class<T> kind, String expected) {
        BpfMap m = resolve(call, helper, handle);
        if (!kind.isInstance(m)) throw call.badArgument(helper + " needs a " + expected + " map, got " + m.describe());
        return kind.cast(m);
    }

    /** True when {@code address} is the {@code bpf_spin_lock} word of a value of one of this table's maps (or their inner maps). */
    public boolean isSpinLock(long address) {
        for (BpfMap m : maps) if (m.isSpinLock(address)) return true;
        for (BpfMap m : extraByHandle.values()) if (m.isSpinLock(address)) return true;
        return false;
    }

    /** The lock words of every map here (and of the inner maps now in a slot) that a JIT may take natively. */
    public List<dev.bpf4j.runtime.LookupInlining.LockValues> lockValues() {
        List<dev.bpf4j.runtime.LookupInlining.LockValues> out = new ArrayList<>();
        for (BpfMap m : maps) if (m.lockValues() != null) out.add(m.lockValues());
        for (BpfMap m : extraByHandle.values()) if (m.lockValues() != null) out.add(m.lockValues());
        return out;
    }

    /**
     * Every map's regions, for a run's region table, with those of the inner maps now in a map-in-map slot
     * (an inner map put in a slot while a run is in progress is not in that run's table: its accesses are
     * out of bounds).
     */
    public List<MemoryRegion> regions() {
        List<MemoryRegion> out = new ArrayList<>();
        java.util.Set<BpfMap> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.addAll(maps);
        for (BpfMap m : maps) out.addAll(m.regions());
        for (BpfMap m : maps) {
            if (!(m instanceof MapOfMaps outer)) continue;
            for (BpfMap inner : outer.innerMaps()) if (seen.add(inner)) out.addAll(inner.regions());
        }
        return out;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("map table is closed");
    }

    /** Closes every map and frees the handles. */
    @Override public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        maps.forEach(BpfMap::close);
        NativeMemory.free(block);
        synchronized (this) {
            extraHandles.values().forEach(NativeMemory::free);
            extraHandles.clear();
            extraByHandle.clear();
        }
    }
}
