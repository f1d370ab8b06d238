package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfKind;
import dev.bpf4j.btf.BtfType;
import dev.bpf4j.elf.ElfSection;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * The single-entry ARRAY maps libbpf makes for global variables: one per non-empty {@code .data*},
 * {@code .rodata*} and {@code .bss*} section (value = section bytes), and one for {@code .kconfig}
 * externs, laid out as libbpf lays them out (by alignment descending, then size, then name).
 */
final class GlobalDataMaps {
    /** The kernel's KMALLOC_MAX_SIZE on x86-64: the largest value an array map may have. */
    static final long MAX_VALUE_SIZE = 4L << 20;
    static final String KCONFIG = ".kconfig";

    private GlobalDataMaps() {}

    static boolean isDataSection(ElfSection s) {
        String n = s.name();
        if (s.type() == ElfSection.SHT_PROGBITS && !s.isExecutable()) {
            return n.equals(".data") || n.startsWith(".data.") || n.equals(".rodata") || n.startsWith(".rodata.");
        }
        return s.type() == ElfSection.SHT_NOBITS && (n.equals(".bss") || n.startsWith(".bss."));
    }

    static void parse(ObjectContext ctx) {
        for (ElfSection s : ctx.elf.sections()) {
            if (!isDataSection(s) || s.size() == 0) continue;
            if (s.size() > MAX_VALUE_SIZE || s.size() < 0) {
                throw error("%s is %s bytes, larger than a global-data map value may be (%d)", s.describe(), Long.toUnsignedString(s.size()), MAX_VALUE_SIZE);
            }
            boolean rodata = s.name().startsWith(".rodata");
            byte[] contents = s.type() == ElfSection.SHT_NOBITS ? new byte[(int) s.size()] : ctx.elf.data(s);
            String name = ObjectNames.internalMapName(ctx.objectName, s.name());
            int flags = (rodata ? MapSpec.BPF_F_RDONLY_PROG : 0) | (mmapable(ctx.btf, s.name()) ? MapSpec.BPF_F_MMAPABLE : 0);
            ctx.addMap(internalMap(name, s.name(), contents.length, flags, datasecId(ctx.btf, s.name()), contents));
            ctx.dataMaps.put(s.index(), name);
        }
        parseKconfig(ctx);
    }

    private static MapSpec internalMap(String name, String section, int size, int flags, int valueTypeId, byte[] contents) {
        return new MapSpec(name, section, MapType.ARRAY, 4, size, 1, flags, Pinning.NONE, 0, 0, 0, valueTypeId, null, Map.of(), contents);
    }

    private static int datasecId(Btf btf, String section) {
        return btf == null ? 0 : Math.max(0, btf.find(BtfKind.DATASEC, section));
    }

    /** libbpf's {@code map_is_mmapable}: the DATASEC has at least one non-static variable. */
    private static boolean mmapable(Btf btf, String section) {
        if (btf == null) return false;
        BtfType.Datasec ds = btf.datasec(section).orElse(null);
        if (ds == null) return false;
        for (BtfType.VarSecinfo v : ds.vars()) {
            if (btf.type(v.type()) instanceof BtfType.Var var && var.linkage() != BtfType.Var.STATIC) return true;
        }
        return false;
    }

    private record Extern(String name, long size, long align) {}

    /** {@code extern ... __kconfig} variables: undefined ELF symbols whose BTF VAR is in DATASEC .kconfig. */
    private static void parseKconfig(ObjectContext ctx) {
        if (ctx.btf == null) return;
        BtfType.Datasec ds = ctx.btf.datasec(KCONFIG).orElse(null);
        if (ds == null) return;
        List<Extern> externs = new ArrayList<>();
        for (BtfType.VarSecinfo v : ds.vars()) {
            if (!(ctx.btf.type(v.type()) instanceof BtfType.Var var)) throw error("DATASEC .kconfig entry %s is not a VAR", ctx.btf.describe(v.type()));
            if (!ctx.hasUndefinedSymbol(var.name())) continue;
            if (ctx.kconfigOffsets.put(var.name(), -1) != null) throw error("kconfig extern '%s' is declared twice", var.name());
            long size = ctx.btf.resolveSize(var.type());
            if (size <= 0 || size > 4096) throw error("kconfig extern '%s' has unsupported size %d", var.name(), size);
            externs.add(new Extern(var.name(), size, alignOf(ctx.btf, var.type(), var.name())));
        }
        if (externs.isEmpty()) return;
        externs.sort(Comparator.comparingLong((Extern e) -> -e.align).thenComparingLong(e -> e.size).thenComparing(e -> e.name));
        long off = 0;
        for (Extern e : externs) {
            off = (off + e.align - 1) / e.align * e.align;
            ctx.kconfigOffsets.put(e.name, (int) off);
            off += e.size;
        }
        fixupKconfigDatasec(ctx, ds, off);
        String name = ObjectNames.internalMapName(ctx.objectName, KCONFIG);
        int flags = MapSpec.BPF_F_RDONLY_PROG | MapSpec.BPF_F_MMAPABLE;
        ctx.addMap(internalMap(name, KCONFIG, (int) off, flags, datasecId(ctx.btf, KCONFIG), new byte[(int) off]));
        ctx.kconfigMapName = name;
    }

    /**
     * As libbpf's {@code bpf_object__collect_externs}: the .kconfig DATASEC gets the layout's size and
     * offsets, and its extern VARs become allocated globals (that is the BTF the kernel is given).
     */
    private static void fixupKconfigDatasec(ObjectContext ctx, BtfType.Datasec ds, long size) {
        Map<Integer, BtfType> fixed = new java.util.HashMap<>();
        List<BtfType.VarSecinfo> vars = new ArrayList<>();
        for (BtfType.VarSecinfo v : ds.vars()) {
            BtfType.Var var = (BtfType.Var) ctx.btf.type(v.type());
            Integer off = ctx.kconfigOffsets.get(var.name());
            if (off == null) { vars.add(v); continue; }
            vars.add(new BtfType.VarSecinfo(v.type(), off, v.size()));
            fixed.put(v.type(), new BtfType.Var(var.name(), var.type(), BtfType.Var.GLOBAL));
        }
        vars.sort(Comparator.comparingLong(BtfType.VarSecinfo::offset));
        fixed.put(ctx.btf.find(BtfKind.DATASEC, KCONFIG), new BtfType.Datasec(KCONFIG, size, vars));
        ctx.btf = ctx.btf.withTypes(fixed);
    }

    /** Alignment of the kconfig value types libbpf accepts: integers, enums, bools and char arrays. */
    private static long alignOf(Btf btf, int typeId, String name) {
        for (int depth = 0; depth <= Btf.MAX_RESOLVE_DEPTH; depth++) {
            BtfType t = btf.type(btf.skipModsAndTypedefs(typeId));
            if (t instanceof BtfType.Int i) return Math.max(1, Math.min(i.size(), 8));
            if (t instanceof BtfType.Enum e) return Math.max(1, Math.min(e.size(), 8));
            if (!(t instanceof BtfType.Array a)) throw error("kconfig extern '%s' has unsupported type %s", name, t.kind());
            typeId = a.elemType();
        }
        throw error("kconfig extern '%s': array type nested deeper than %d", name, Btf.MAX_RESOLVE_DEPTH);
    }
}
