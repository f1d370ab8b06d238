package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * {@code BPF_MAP_TYPE_ARRAY_OF_MAPS} and {@code BPF_MAP_TYPE_HASH_OF_MAPS} ({@code kernel/bpf/map_in_map.c},
 * {@code arraymap.c}, {@code hashtab.c}): each value is an inner map.
 * <ul>
 * <li>User space sees a value as the inner map's {@link BpfMap#id() id} (a u32): {@link #update} takes it
 * where the kernel takes a map fd ({@code -EBADF} for an id of no open map), {@link #lookup} returns it as
 * the kernel does. {@link #setInner}/{@link #inner} do the same with map objects.</li>
 * <li>Every inner map must match the {@link #innerTemplate() template} ({@code map_meta_equal}): type,
 * key and value size, map_flags and spin lock; array kinds also max_entries unless the template has
 * {@code BPF_F_INNER_MAP}. Otherwise {@code -EINVAL}.</li>
 * <li>Programs may only look up ({@code bpf_map_lookup_elem}): the helper turns {@link #programInner} into
 * the inner map's handle, or NULL for an empty slot.</li>
 * </ul>
 * The outer map does not own its inner maps: closing one while it sits in a slot makes programs that look
 * it up fail with HELPER_FAILED (the kernel would keep it alive by reference count).
 */
public final class MapOfMaps extends BpfMap {
    private static final int ACCESS_PROG = MapFlags.BPF_F_RDONLY_PROG | MapFlags.BPF_F_WRONLY_PROG;
    private final MapDefinition template;
    private final AtomicIntegerArray array;  // ARRAY_OF_MAPS: the id in each slot, 0 when empty
    private final HashTabMap hash;           // HASH_OF_MAPS: key -> u32 id

    public MapOfMaps(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type().isMapInMap(), "not a map-in-map type");
        // fd_array_map_alloc_check / fd_htab_map_alloc_check: the values are 4-byte map fds
        CreateChecks.require(def, def.valueSize() == 4, "map-in-map values are 4-byte map ids (value_size 4)");
        CreateChecks.require(def, (def.flags() & ACCESS_PROG) == 0, "BPF_F_RDONLY_PROG / BPF_F_WRONLY_PROG are not supported for map-in-map");
        this.template = checkTemplate(def);
        if (def.type() == MapType.ARRAY_OF_MAPS) {
            CreateChecks.flags(def, CreateChecks.ARRAY_MASK);
            CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4, "array of maps needs key_size 4 and max_entries > 0");
            if (Integer.toUnsignedLong(def.maxEntries()) > 1 << 24) throw CreateChecks.fail(def, Errno.E2BIG, "max_entries too large");
            this.array = new AtomicIntegerArray(def.maxEntries());
            this.hash = null;
        } else {
            CreateChecks.flags(def, CreateChecks.HTAB_MASK);
            this.array = null;
            this.hash = new HashTabMap(new MapDefinition(def.name(), MapType.HASH, def.keySize(), 4, def.maxEntries(), def.flags()));
        }
    }

    /** bpf_map_meta_alloc: the template must itself be a map that can be created, one level only. */
    private static MapDefinition checkTemplate(MapDefinition def) {
        MapDefinition t = def.innerMap();
        if (t == null) throw CreateChecks.fail(def, Errno.EINVAL, "a map-in-map needs an inner map template (the kernel's inner_map_fd)");
        if (t.type().isMapInMap()) throw CreateChecks.fail(def, Errno.EINVAL, "inner map '" + t.name() + "' is a map-in-map: only one level is supported");
        if (t.type() == MapType.PROG_ARRAY) throw CreateChecks.fail(def, Errno.ENOTSUPP, "a PROG_ARRAY cannot be an inner map");
        try (BpfMap probe = Maps.create(t)) { // the kernel's template is a live map: it must be creatable
            return probe.definition();
        } catch (BpfMapException e) {
            throw new BpfMapException(e.errno(), "cannot create map '" + def.name() + "' (" + def.type() + "): inner map template: " + e.getMessage());
        }
    }

    /** The definition every inner map must match. */
    public MapDefinition innerTemplate() { return template; }

    /** The kernel's {@code map_meta_equal} for this map's inner maps. */
    public boolean accepts(MapDefinition inner) { return compatible(template, inner); }

    /** {@code bpf_map_meta_equal}, plus {@code array_map_meta_equal}'s max_entries rule for array kinds. */
    public static boolean compatible(MapDefinition template, MapDefinition inner) {
        boolean same = template.type() == inner.type() && template.keySize() == inner.keySize()
                && template.valueSize() == inner.valueSize() && template.flags() == inner.flags()
                && template.spinLockOffset() == inner.spinLockOffset();
        if (!same) return false;
        boolean arrayKind = template.type() == MapType.ARRAY || template.type() == MapType.PERCPU_ARRAY;
        return !arrayKind || (template.flags() & MapFlags.BPF_F_INNER_MAP) != 0 || template.maxEntries() == inner.maxEntries();
    }

    // ---- Java API with map objects -------------------------------------------------------------

    /** Puts {@code inner} under {@code key} ({@code BPF_MAP_UPDATE_ELEM} with its id as the value). */
    public void setInner(byte[] key, BpfMap inner, long flags) { update(key, ArrayKeys.le32(inner.id()), flags); }

    /** {@link #setInner(byte[], BpfMap, long)} at array index {@code index} ({@code BPF_ANY}). */
    public void setInner(int index, BpfMap inner) { setInner(ArrayKeys.le32(index), inner, MapFlags.BPF_ANY); }

    /** The inner map under {@code key}; empty when the slot is empty (or its map has been closed). */
    public Optional<BpfMap> inner(byte[] key) {
        return lookup(key).flatMap(id -> Maps.byId(ArrayKeys.u32(id)));
    }

    public Optional<BpfMap> inner(int index) { return inner(ArrayKeys.le32(index)); }

    /** Empties array slot {@code index} ({@code BPF_MAP_DELETE_ELEM}). */
    public void clear(int index) { delete(ArrayKeys.le32(index)); }

    /** The open maps now in this map's slots, each once. */
    public java.util.List<BpfMap> innerMaps() {
        java.util.Set<Integer> ids = new java.util.LinkedHashSet<>();
        if (array != null) {
            for (int i = 0; i < array.length(); i++) if (array.get(i) != 0) ids.add(array.get(i));
        } else {
            for (byte[] k : hash.keys()) {
                byte[] v = hash.read(k);
                if (v != null) ids.add(ArrayKeys.u32(v));
            }
        }
        java.util.List<BpfMap> out = new java.util.ArrayList<>();
        for (int id : ids) Maps.byId(id).ifPresent(out::add);
        return out;
    }

    // ---- program side --------------------------------------------------------------------------

    /**
     * {@code bpf_map_lookup_elem} on the outer map: the inner map under the key at {@code keyAddress}, or
     * null when there is none. Throws {@link BpfMapException} when the slot's map has been closed.
     */
    public BpfMap programInner(long keyAddress) {
        checkOpen();
        byte[] key = NativeMemory.read(keyAddress, def.keySize());
        int id = slotId(key);
        if (id == 0) return null;
        return Maps.byId(id).orElseThrow(() -> new BpfMapException(Errno.ENOENT, describe() + ": the inner map #" + id
                + " under key " + java.util.HexFormat.of().formatHex(key) + " has been closed"));
    }

    @Override public long programLookup(long keyAddress) {
        throw new IllegalStateException(describe() + ": programs look up inner maps through the helper (programInner)");
    }

    private int slotId(byte[] key) {
        if (array != null) {
            int i = ArrayKeys.u32(key);
            return inRange(i) ? array.get(i) : 0;
        }
        byte[] v = hash.read(key);
        return v == null ? 0 : ArrayKeys.u32(v);
    }

    // ---- per-type operations -------------------------------------------------------------------

    @Override protected byte[] read(byte[] key) {
        int id = slotId(key);
        return id == 0 ? null : ArrayKeys.le32(id);
    }

    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) {
        if (array != null) {
            // bpf_fd_array_map_update_elem: flags, then index, then the fd
            if (flags != MapFlags.BPF_ANY) return -Errno.EINVAL;
            int i = ArrayKeys.u32(key);
            if (!inRange(i)) return -Errno.E2BIG;
            int err = checkInner(ArrayKeys.u32(value));
            if (err != 0) return err;
            array.set(i, ArrayKeys.u32(value));
            return 0;
        }
        int err = checkInner(ArrayKeys.u32(value)); // bpf_fd_htab_map_update_elem: the fd first
        return err != 0 ? err : hash.write(key, value, flags, true);
    }

    /** bpf_map_fd_get_ptr: {@code -EBADF} for no such open map, {@code -EINVAL} when it does not match the template. */
    private int checkInner(int id) {
        Optional<BpfMap> inner = Maps.byId(id);
        if (inner.isEmpty()) return -Errno.EBADF;
        return compatible(template, inner.get().definition()) ? 0 : -Errno.EINVAL;
    }

    @Override protected int remove(byte[] key) {
        if (array == null) return hash.remove(key);
        int i = ArrayKeys.u32(key);
        if (!inRange(i)) return -Errno.E2BIG;
        return array.getAndSet(i, 0) == 0 ? -Errno.ENOENT : 0;
    }

    @Override protected int next(byte[] key, byte[] out) {
        return array == null ? hash.next(key, out) : ArrayKeys.next(def.maxEntries(), key, out);
    }

    @Override protected void free() {
        if (hash != null) hash.close();
    }

    private boolean inRange(int index) { return ArrayKeys.inRange(index, def.maxEntries()); }
}
