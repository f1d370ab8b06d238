package dev.bpf4j.api;

import dev.bpf4j.btf.MapBtf;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.TypedMap;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.GlobalVariable;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfNotFoundException;
import dev.bpf4j.maps.Errno;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded object: its live maps and programs (libbpf's loaded {@code bpf_object}, cilium's
 * {@code Collection}). Open one with {@link #open(Path)}, edit, then {@link OpenObject#load}.
 * Closing it closes the programs and frees every map; close it only when no run is in progress.
 *
 * <pre>{@code
 * try (BpfObject obj = BpfObject.open(path).maxEntries("counts", 1024).load("interp")) {
 *     RunResult r = obj.program("xdp_count").run(RunOptions.packet(frame));
 *     obj.map("counts").lookup(key);
 * }
 * }</pre>
 */
public final class BpfObject implements AutoCloseable {
    private final BpfObjectSpec spec;
    private final MapTable maps;
    private final Map<String, BpfProgram> programs;
    private volatile boolean closed;

    BpfObject(BpfObjectSpec spec, MapTable maps, List<BpfProgram> programs) {
        this.spec = spec;
        this.maps = maps;
        Map<String, BpfProgram> byName = new LinkedHashMap<>();
        for (BpfProgram p : programs) byName.put(p.name(), p);
        this.programs = Collections.unmodifiableMap(byName);
    }

    /** Parses an object file into an editable {@link OpenObject}. */
    public static OpenObject open(Path path) { return new OpenObject(BpfObjectSpec.read(path)); }

    /** Wraps an already parsed (and perhaps edited) spec. */
    public static OpenObject open(BpfObjectSpec spec) { return new OpenObject(spec); }

    /** The spec this object was loaded from. */
    public BpfObjectSpec spec() { return spec; }

    public String name() { return spec.name(); }

    /** The loaded programs, in object order (programs in {@code ?sec} sections are not loaded). */
    public Collection<BpfProgram> programs() { return programs.values(); }

    /**
     * The loaded program called {@code name} (its function name in the object).
     *
     * @throws BpfNotFoundException  when the object loaded no such program (the message lists those it did)
     * @throws IllegalStateException when the object is closed
     */
    public BpfProgram program(String name) {
        checkOpen();
        BpfProgram p = programs.get(name);
        if (p == null) throw new BpfNotFoundException("program", name, List.copyOf(programs.keySet()), "object '" + spec.name()
                + "' has no loaded program '" + name + "' (loaded: " + String.join(", ", programs.keySet()) + ")");
        return p;
    }

    /**
     * The live map; use {@code BpfMap}'s lookup/update/delete or a typed {@code MapView} over it.
     *
     * @throws BpfNotFoundException  when the object has no such map (the message lists those it has)
     * @throws IllegalStateException when the object is closed
     */
    public BpfMap map(String name) {
        checkOpen();
        List<String> names = maps.maps().stream().map(BpfMap::name).toList();
        return maps.map(name).orElseThrow(() -> new BpfNotFoundException("map", name, names, "object '" + spec.name()
                + "' has no map '" + name + "' (maps: " + String.join(", ", names) + ")"));
    }

    /**
     * The live ARRAY_OF_MAPS / HASH_OF_MAPS of that name: set, read and clear its inner maps by slot.
     *
     * @throws BpfNotFoundException when the object has no such map
     * @throws BpfMapException      when the map is not a map-in-map
     */
    public MapOfMaps mapOfMaps(String name) {
        BpfMap m = map(name);
        if (!(m instanceof MapOfMaps outer)) throw new BpfMapException(Errno.EINVAL, m.describe() + " is not a map-in-map");
        return outer;
    }

    /**
     * The live map read and written by its BTF key and value types ({@code typedMap("flows").get(key)},
     * {@code .as(FlowKey.class, Stats.class)} for records); a {@link BpfException} when it has no BTF.
     */
    public TypedMap typedMap(String name) {
        BpfMap m = map(name);
        MapBtf types = mapBtf(name);
        if (types == null) throw new BpfException(m.describe() + " has no BTF value type (object without .BTF, or a legacy map definition)");
        return TypedMap.of(m, types.btf(), types.keyTypeId(), types.valueTypeId());
    }

    /** The BTF of a map of the object, or null when it has none. */
    public MapBtf mapBtf(String name) {
        MapSpec m = spec.findMap(name).orElse(null);
        return m == null || m.type().isMapInMap() ? null : MapBtf.of(spec.btf(), m.keyTypeId(), m.valueTypeId());
    }

    /**
     * A global variable of {@code .data}, {@code .bss} or {@code .rodata} (libbpf's skeleton field,
     * cilium's {@code Variable}): read and written in the live map by its BTF type. {@code .rodata}
     * is frozen at load, so writing it here is refused; set it before load with {@link OpenObject#variable}.
     *
     * @throws BpfNotFoundException when the object has no such variable
     */
    public Variable variable(String name) {
        checkOpen();
        GlobalVariable v = spec.variable(name);
        return new Variable(v, spec.btf(), map(v.mapName()));
    }

    /** Every global variable, in section and offset order. */
    public List<Variable> variables() { return spec.variables().stream().map(v -> variable(v.name())).toList(); }

    /** Every live map, in object order. */
    public List<BpfMap> maps() { return maps.maps(); }

    /** The handle table programs reference their maps through. */
    public MapTable mapTable() { return maps; }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("object '" + spec.name() + "' is closed");
    }

    @Override public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        try {
            programs.values().forEach(BpfProgram::close);
        } finally {
            maps.close();
        }
    }
}
