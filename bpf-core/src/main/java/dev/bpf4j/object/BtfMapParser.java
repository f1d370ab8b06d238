package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfType;
import dev.bpf4j.elf.ElfRelocation;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * BTF-defined maps of the {@code .maps} section, read as libbpf's {@code parse_btf_map_def} reads
 * them: each variable of the {@code .maps} DATASEC is a struct whose members encode the attributes,
 * integers as {@code int (*name)[N]} (a pointer to an array of N elements) and key/value as pointers
 * to their types.
 */
final class BtfMapParser {
    private final ObjectContext ctx;
    private final Btf btf;

    private BtfMapParser(ObjectContext ctx) {
        this.ctx = ctx;
        this.btf = ctx.btf;
    }

    static void parse(ObjectContext ctx) {
        if (ctx.btfMapsIndex < 0) return;
        if (ctx.btf == null) throw error("section '.maps' needs .BTF, but the object has none (compile with -g)");
        new BtfMapParser(ctx).parseAll();
    }

    /** The map attributes collected from one definition struct. */
    private static final class Def {
        MapType type;
        long keySize = -1, valueSize = -1, maxEntries, flags, numaNode, mapExtra;
        int keyTypeId, valueTypeId;
        Pinning pinning = Pinning.NONE;
        MapSpec inner;
        long valuesBitOffset = -1;
    }

    private void parseAll() {
        ElfSection sec = ctx.section(ctx.btfMapsIndex);
        BtfType.Datasec ds = btf.datasec(".maps").orElseThrow(() -> error("section '.maps' has no DATASEC '.maps' in .BTF"));
        List<Extent> extents = new ArrayList<>();
        for (BtfType.VarSecinfo vsi : ds.vars()) {
            if (!(btf.type(vsi.type()) instanceof BtfType.Var var)) throw error("DATASEC '.maps' entry %s is not a VAR", btf.describe(vsi.type()));
            String name = var.name();
            ElfSymbol sym = ctx.symbolIn(ctx.btfMapsIndex, name)
                    .orElseThrow(() -> error("map '%s': no symbol of that name in section '.maps'", name));
            int defId = btf.skipModsAndTypedefs(var.type());
            if (!(btf.type(defId) instanceof BtfType.Composite def) || def.union()) {
                throw error("map '%s': definition must be a struct, is %s", name, btf.describe(defId));
            }
            // The variable may be larger than its struct type: a trailing 'values' array has BTF size 0.
            long size = Math.max(def.size(), vsi.size() != 0 ? vsi.size() : sym.size());
            if (sym.value() < 0 || size < 0 || sym.value() > sec.size() || size > sec.size() - sym.value()) {
                throw error("map '%s': definition at offset %d (size %d) extends past section '.maps' (%d bytes)", name, sym.value(), size, sec.size());
            }
            Def d = parseDef(name, def, false);
            MapSpec spec = toSpec(name, d);
            ctx.addMap(spec);
            ctx.mapsByDefinition.put(new ObjectContext.Definition(ctx.btfMapsIndex, sym.value()), name);
            extents.add(new Extent(name, sym.value(), sym.value() + size,
                    d.valuesBitOffset < 0 ? -1 : sym.value() + d.valuesBitOffset / 8));
        }
        extents.sort(java.util.Comparator.comparingLong(Extent::start));
        collectInitialSlots(extents);
    }

    private Def parseDef(String mapName, BtfType.Composite def, boolean inner) {
        Def d = new Def();
        int n = def.members().size();
        for (int i = 0; i < n; i++) {
            BtfType.Member m = def.members().get(i);
            String field = m.name();
            switch (field) {
                case "type": {
                    long t = intField(mapName, m);
                    d.type = MapType.of(t);
                    if (d.type == null) throw error("map '%s': unknown map type %d", mapName, t);
                    break;
                }
                case "max_entries": d.maxEntries = intField(mapName, m); break;
                case "map_flags": d.flags = intField(mapName, m); break;
                case "numa_node": d.numaNode = intField(mapName, m); break;
                case "map_extra": d.mapExtra = longField(mapName, m); break;
                case "key_size": d.keySize = sizeField(mapName, field, intField(mapName, m), d.keySize); break;
                case "value_size": d.valueSize = sizeField(mapName, field, intField(mapName, m), d.valueSize); break;
                case "key": {
                    int target = pointee(mapName, m);
                    d.keySize = sizeField(mapName, "key", btf.resolveSize(target), d.keySize);
                    d.keyTypeId = target;
                    break;
                }
                case "value": {
                    int target = pointee(mapName, m);
                    d.valueSize = sizeField(mapName, "value", btf.resolveSize(target), d.valueSize);
                    d.valueTypeId = target;
                    break;
                }
                case "values": parseValues(mapName, def, i, inner, d); break;
                case "pinning": {
                    if (inner) throw error("map '%s': an inner map definition cannot be pinned", mapName);
                    long v = intField(mapName, m);
                    d.pinning = Pinning.of(v);
                    if (d.pinning == null) throw error("map '%s': invalid pinning value %d", mapName, v);
                    break;
                }
                default: throw error("map '%s': unknown field '%s'", mapName, field);
            }
        }
        if (d.type == null) throw error("map '%s': map type isn't specified", mapName);
        return d;
    }

    private void parseValues(String mapName, BtfType.Composite def, int index, boolean inner, Def d) {
        BtfType.Member m = def.members().get(index);
        if (inner) throw error("map '%s': multi-level inner maps are not supported", mapName);
        if (index != def.members().size() - 1) throw error("map '%s': 'values' member must be the last one", mapName);
        boolean mapInMap = d.type != null && d.type.isMapInMap();
        boolean progArray = d.type == MapType.PROG_ARRAY;
        if (!mapInMap && !progArray) throw error("map '%s': 'values' needs a map-in-map or prog-array type (declare 'type' first)", mapName);
        d.valueSize = sizeField(mapName, "value", 4, d.valueSize);
        if (!(btf.type(m.type()) instanceof BtfType.Array arr)) throw error("map '%s': 'values' must be an array, is %s", mapName, btf.describe(m.type()));
        if (arr.nelems() != 0) throw error("map '%s': 'values' must be a zero-length array", mapName);
        int ptrId = btf.skipModsAndTypedefs(arr.elemType());
        if (!(btf.type(ptrId) instanceof BtfType.Ptr ptr)) throw error("map '%s': 'values' must be an array of pointers", mapName);
        int targetId = btf.skipModsAndTypedefs(ptr.type());
        BtfType target = btf.type(targetId);
        if (progArray) {
            if (!(target instanceof BtfType.FuncProto)) throw error("map '%s': 'values' of a prog array must be function pointers", mapName);
        } else {
            if (!(target instanceof BtfType.Composite c) || c.union()) throw error("map '%s': 'values' must point to an inner map definition struct", mapName);
            String innerName = mapName + ".inner";
            d.inner = toSpec(innerName, parseDef(innerName, c, true));
        }
        d.valuesBitOffset = m.bitOffset();
    }

    private long intField(String mapName, BtfType.Member m) {
        int ptrId = btf.skipModsAndTypedefs(m.type());
        if (!(btf.type(ptrId) instanceof BtfType.Ptr ptr)) {
            throw error("map '%s': attr '%s': expected PTR, got %s", mapName, m.name(), btf.describe(ptrId));
        }
        if (!(btf.type(ptr.type()) instanceof BtfType.Array arr)) {
            throw error("map '%s': attr '%s': expected a pointer to ARRAY, got a pointer to %s", mapName, m.name(), btf.describe(ptr.type()));
        }
        return arr.nelems();
    }

    /** libbpf's {@code get_map_field_long}: {@code __uint} (pointer to array) or {@code __ulong} (a one-value enum). */
    private long longField(String mapName, BtfType.Member m) {
        int id = btf.skipModsAndTypedefs(m.type());
        if (btf.type(id) instanceof BtfType.Ptr) return intField(mapName, m);
        if (!(btf.type(id) instanceof BtfType.Enum e)) throw error("map '%s': attr '%s': expected PTR, ENUM or ENUM64, got %s", mapName, m.name(), btf.describe(id));
        if (e.values().size() != 1) throw error("map '%s': attr '%s': invalid __ulong (enum with %d values)", mapName, m.name(), e.values().size());
        return e.values().get(0).value();
    }

    private int pointee(String mapName, BtfType.Member m) {
        int ptrId = btf.skipModsAndTypedefs(m.type());
        if (!(btf.type(ptrId) instanceof BtfType.Ptr ptr)) {
            throw error("map '%s': %s must be declared with __type (a pointer), got %s", mapName, m.name(), btf.describe(ptrId));
        }
        return ptr.type();
    }

    private static long sizeField(String mapName, String what, long size, long previous) {
        if (previous >= 0 && previous != size) throw error("map '%s': conflicting %s size %d != %d", mapName, what, previous, size);
        return size;
    }

    private static int u32(String mapName, String what, long v) {
        if (v < 0 || v > Integer.MAX_VALUE) throw error("map '%s': %s %d is larger than supported (%d)", mapName, what, v, Integer.MAX_VALUE);
        return (int) v;
    }

    private MapSpec toSpec(String name, Def d) {
        return new MapSpec(name, ".maps", d.type, u32(name, "key size", Math.max(0, d.keySize)),
                u32(name, "value size", Math.max(0, d.valueSize)), u32(name, "max_entries", d.maxEntries),
                (int) d.flags, d.pinning, (int) d.numaNode, d.mapExtra, d.keyTypeId, d.valueTypeId, d.inner, Map.of(), null);
    }

    /** Where one definition lies in {@code .maps}, and where its {@code values} member starts (-1: none). */
    private record Extent(String name, long start, long end, long valuesStart) {}

    /** The last definition starting at or before {@code offset}, if it contains it (binary search). */
    private static Extent containing(List<Extent> sorted, long offset) {
        int lo = 0, hi = sorted.size() - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted.get(mid).start() <= offset) { found = mid; lo = mid + 1; } else hi = mid - 1;
        }
        if (found < 0) return null;
        Extent e = sorted.get(found);
        return offset < e.end() ? e : null;
    }

    /** {@code .values = { [1] = &inner }}: relocations in {@code .rel.maps} fill slots of the outer map. */
    private void collectInitialSlots(List<Extent> extents) {
        Map<String, Map<Integer, String>> slots = new HashMap<>();
        for (ElfRelocation rel : ctx.elf.relocationsFor(ctx.btfMapsIndex)) {
            ElfSymbol sym = ctx.elf.symbol(rel.symbolIndex());
            Extent ext = containing(extents, rel.offset());
            if (ext == null || ext.valuesStart() < 0 || rel.offset() < ext.valuesStart()) {
                throw error("relocation in '.maps' at offset %d (symbol '%s') is not inside the 'values' of a map-in-map or prog array",
                        rel.offset(), sym.name());
            }
            long delta = rel.offset() - ext.valuesStart();
            if (delta % 8 != 0) throw error("map '%s': relocation at offset %d is not at an 8-byte slot of 'values'", ext.name(), rel.offset());
            int slot = (int) (delta / 8);
            MapSpec outer = ctx.maps.get(ext.name());
            if (outer.type().isMapInMap() && (sym.sectionIndex() != ctx.btfMapsIndex || !ctx.maps.containsKey(sym.name()))) {
                throw error("map '%s': slot %d refers to '%s', which is not a map of '.maps'", ext.name(), slot, sym.name());
            }
            if (outer.type() == MapType.PROG_ARRAY && (sym.type() != ElfSymbol.STT_FUNC || sym.sectionIndex() == ctx.textIndex)) {
                throw error("map '%s': slot %d refers to '%s', which is not a program", ext.name(), slot, sym.name());
            }
            slots.computeIfAbsent(ext.name(), k -> new HashMap<>()).put(slot, sym.name());
        }
        slots.forEach((name, s) -> ctx.maps.put(name, ctx.maps.get(name).withInitialSlots(s)));
    }
}
