package dev.bpf4j.api;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.btf.SpinLockField;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MapShapes;
import dev.bpf4j.maps.MapType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The load stage, in libbpf's order: create maps (global data with its initial contents, {@code .rodata}
 * frozen and read-only for programs), register helpers, then relocate, validate and load each program.
 * Everything made so far is released when a step fails.
 */
final class ObjectLoader {
    private ObjectLoader() {}

    static BpfObject load(BpfObjectSpec spec, ObjectLoadOptions options) {
        refuseOwnVerifier(spec, options);
        MapTable maps = createMaps(spec);
        List<BpfProgram> programs = new ArrayList<>();
        try {
            HelperRegistry.Builder b = HelperRegistry.builder();
            BpfHelpers.register(b, maps, BpfHelpers.Options.defaults().withTraceSink(options.traceSink()));
            options.helperExtras().accept(b);
            HelperRegistry helpers = b.build();
            // perf_event runs stand for the sampled thread (ProgramType.runsForSampledTask): the task helpers must see the run's CurrentTask
            HelperRegistry sampledTask = helpers.toBuilder().withoutNativeForms(BpfHelpers.OF_CURRENT_TASK).build();
            Map<String, SpinLockCheck.Target> lockTargets = lockTargets(spec);
            for (ProgramSpec p : spec.programs()) {
                if (!p.autoload()) continue;
                LoadOptions loadOptions = p.type().applyTo(new LoadOptions(p.type().runsForSampledTask() ? sampledTask : helpers, 1, false,
                        p.type().legacyPacketLoads(), p.type().packetContext(), EntryRegisters.CONTEXT, shapes(maps)), p.attachType());
                programs.add(new BpfProgram(p, MapRelocator.relocate(p, maps), maps, loadOptions, options, lockTargets));
            }
            fillProgArrays(spec, maps, programs);
            return new BpfObject(spec, maps, programs);
        } catch (RuntimeException e) {
            programs.forEach(BpfProgram::close);
            maps.close();
            throw e;
        }
    }

    /**
     * A {@code BpfObject}'s maps live in this JVM and its programs reference them by bpf4j handles, so an
     * engine with its own verifier and maps (the Linux kernel) cannot load them: it would take the relocated
     * program for a syscall program and fail at the first run. Said here, before anything is created.
     */
    private static void refuseOwnVerifier(BpfObjectSpec spec, ObjectLoadOptions options) {
        if (!options.engine().verifiesItself()) return;
        throw new BpfLoadException("object '" + spec.name() + "': the '" + options.engine().name() + "' engine cannot load a"
                + " BpfObject (its maps live in this JVM); load the object into Linux with"
                + " dev.bpf4j.kernel.object.KernelObject.load(spec, programs) from bpf4j-kernel, which creates kernel maps"
                + " and loads each program with its real type, or run it with `bpf4j run OBJ.o --engine kernel`");
    }

    /** The key and value sizes behind each handle of {@code maps}, for the verifier (a map of maps has no plain value). */
    private static MapShapes shapes(MapTable maps) {
        return new MapShapes() {
            @Override public Shape of(long handle) { return maps.find(handle).map(ObjectLoader::shape).orElse(null); }

            /** MapRelocator's BPF_PSEUDO_MAP_VALUE addresses: inside the one value of an ARRAY map (global data). */
            @Override public Value valueAt(long address) {
                for (BpfMap m : maps.maps()) {
                    if (!(m instanceof ArrayMap a) || m.type() != MapType.ARRAY) continue;
                    long base = a.valuesBase();
                    if (address >= base && address - base < m.valueSize()) return new Value(maps.handle(m), shape(m), address - base);
                }
                return null;
            }
        };
    }

    private static MapShapes.Shape shape(BpfMap m) {
        return new MapShapes.Shape(m.keySize(), m.type().isMapInMap() ? -1 : m.valueSize(), m.type().id(), m.maxEntries());
    }

    /** libbpf's init_prog_array_slots: each {@code .values} entry of a prog array gets the loaded program. */
    private static void fillProgArrays(BpfObjectSpec spec, MapTable maps, List<BpfProgram> programs) {
        for (MapSpec m : spec.maps()) {
            if (m.type() != MapType.PROG_ARRAY || m.initialSlots().isEmpty()) continue;
            ProgArrayMap array = (ProgArrayMap) maps.map(m.name()).orElseThrow();
            for (var slot : m.initialSlotsSorted().entrySet()) {
                BpfProgram target = programs.stream().filter(p -> p.name().equals(slot.getValue())).findFirst()
                        .orElseThrow(() -> new BpfLoadException("load maps: prog array '" + m.name() + "' slot " + slot.getKey()
                                + " names program '" + slot.getValue() + "', which is not loaded"));
                array.set(slot.getKey(), target.defaultExecutable(), 0);
            }
        }
    }

    /** What {@link SpinLockCheck} needs of each map (and of a map-in-map's inner template). */
    private static Map<String, SpinLockCheck.Target> lockTargets(BpfObjectSpec spec) {
        Map<String, SpinLockCheck.Target> out = new HashMap<>();
        for (MapSpec m : spec.maps()) out.put(m.name(), lockTarget(spec, m));
        return out;
    }

    private static SpinLockCheck.Target lockTarget(BpfObjectSpec spec, MapSpec m) {
        return new SpinLockCheck.Target(m.name(), spec.btf() != null && m.valueTypeId() != 0,
                SpinLockField.offset(spec.btf(), m.valueTypeId(), m.name()), m.innerMap() == null ? null : lockTarget(spec, m.innerMap()));
    }

    /** A spec's BPF_MAP_CREATE attributes, the bpf_spin_lock offset taken from the value's BTF type. */
    static MapDefinition definition(BpfObjectSpec spec, MapSpec m) {
        MapDefinition d = MapDefinition.of(m.name(), m.type().id(), m.keySize(), m.valueSize(), m.maxEntries(), m.flags())
                .withSpinLock(SpinLockField.offset(spec.btf(), m.valueTypeId(), m.name()));
        if (m.type().isMapInMap()) {
            if (m.innerMap() == null) {
                throw new BpfLoadException("load maps: map '" + m.name() + "': " + m.type() + " needs an inner map definition"
                        + " (__array(values, struct inner) in its BTF definition)");
            }
            d = d.withInnerMap(definition(spec, m.innerMap()));
        }
        return d;
    }

    private static MapTable createMaps(BpfObjectSpec spec) {
        List<MapDefinition> defs = new ArrayList<>();
        MapTable table;
        try {
            for (MapSpec m : spec.maps()) defs.add(definition(spec, m));
            table = MapTable.create(defs);
        } catch (BpfMapException | IllegalArgumentException e) {
            throw new BpfLoadException("load maps: " + e.getMessage(), e);
        }
        try {
            for (MapSpec m : spec.maps()) initialise(table.map(m.name()).orElseThrow(), m);
            for (MapSpec m : spec.maps()) if (m.type().isMapInMap()) fillInnerSlots(table, m);
        } catch (RuntimeException e) {
            table.close();
            throw e;
        }
        return table;
    }

    /** libbpf's init_map_in_map_slots: slot i (a u32 key, for hashes too) gets the named map. */
    private static void fillInnerSlots(MapTable table, MapSpec m) {
        MapOfMaps outer = (MapOfMaps) table.map(m.name()).orElseThrow();
        for (var slot : m.initialSlotsSorted().entrySet()) {
            BpfMap inner = table.map(slot.getValue()).orElseThrow(() -> new BpfLoadException("load maps: map '" + m.name()
                    + "' slot " + slot.getKey() + " names map '" + slot.getValue() + "', which was not created"));
            try {
                outer.setInner(new byte[] {(byte) (int) slot.getKey(), (byte) (slot.getKey() >> 8), (byte) (slot.getKey() >> 16),
                        (byte) (slot.getKey() >> 24)}, inner, 0);
            } catch (BpfMapException e) {
                throw new BpfLoadException("load maps: map '" + m.name() + "' slot " + slot.getKey() + " <- map '" + slot.getValue()
                        + "': " + e.getMessage(), e);
            }
        }
    }

    /** libbpf's bpf_object__populate_internal_map: copy the section's bytes in, freeze .rodata. */
    private static void initialise(BpfMap map, MapSpec m) {
        byte[] contents = m.contents();
        if (contents == null) return;
        try {
            if (contents.length != map.valueSize()) {
                throw new BpfLoadException("load maps: map '" + m.name() + "': initial contents are " + contents.length
                        + " bytes, the value " + map.valueSize());
            }
            map.update(new byte[4], contents, 0);
            if (m.isReadOnly()) map.freeze();
        } catch (BpfMapException e) {
            throw new BpfLoadException("load maps: map '" + m.name() + "': initial contents: " + e.getMessage(), e);
        }
    }
}
