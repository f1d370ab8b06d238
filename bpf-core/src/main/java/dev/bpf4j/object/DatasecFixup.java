package dev.bpf4j.object;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfType;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * libbpf's {@code btf_fixup_datasec}: clang leaves every DATASEC's size and its variables' offsets
 * at 0; the size comes from the ELF section of that name and each non-static variable's offset from
 * its ELF symbol. A global variable with hidden visibility becomes static (not exposed to users).
 * Extern-backed {@code .kconfig}/{@code .ksyms} are left alone; variables end up sorted by offset.
 */
final class DatasecFixup {
    private DatasecFixup() {}

    static Btf apply(ObjectContext ctx) {
        Btf btf = ctx.btf;
        Map<Integer, BtfType> fixed = new HashMap<>();
        Map<Integer, BtfType> vars = new HashMap<>();
        for (int id = 1; id < btf.typeCount(); id++) {
            if (!(btf.type(id) instanceof BtfType.Datasec ds)) continue;
            if (ds.name().equals(GlobalDataMaps.KCONFIG) || ds.name().equals(".ksyms")) continue;
            long size = ds.size();
            boolean fixOffsets = false;
            if (size == 0) {
                ElfSection sec = ctx.elf.section(ds.name()).orElse(null);
                if (sec == null || sec.size() == 0) throw error("DATASEC '%s': no ELF section of that name to take its size from", ds.name());
                size = sec.size();
                fixOffsets = true;
            }
            List<BtfType.VarSecinfo> out = new ArrayList<>(ds.vars().size());
            for (BtfType.VarSecinfo vsi : ds.vars()) {
                if (!(btf.type(vsi.type()) instanceof BtfType.Var var)) {
                    if (btf.type(vsi.type()) instanceof BtfType.Func) { out.add(vsi); continue; }
                    throw error("DATASEC '%s': entry %s is not a VAR", ds.name(), btf.describe(vsi.type()));
                }
                if (var.linkage() == BtfType.Var.STATIC || var.linkage() == BtfType.Var.EXTERN) { out.add(vsi); continue; }
                ElfSymbol sym = globalObject(ctx, var.name());
                if (sym == null) throw error("DATASEC '%s': no ELF symbol for variable '%s'", ds.name(), var.name());
                long offset = fixOffsets ? sym.value() : vsi.offset();
                if (offset < 0 || vsi.size() < 0 || offset > size || vsi.size() > size - offset) {
                    throw error("DATASEC '%s': variable '%s' at offset %d (size %d) lies outside the section (%d bytes)", ds.name(), var.name(), offset, vsi.size(), size);
                }
                out.add(new BtfType.VarSecinfo(vsi.type(), offset, vsi.size()));
                int vis = sym.visibility();
                if (vis == ElfSymbol.STV_HIDDEN || vis == ElfSymbol.STV_INTERNAL) {
                    vars.put(vsi.type(), new BtfType.Var(var.name(), var.type(), BtfType.Var.STATIC));
                }
            }
            out.sort(Comparator.comparingLong(BtfType.VarSecinfo::offset));
            fixed.put(id, new BtfType.Datasec(ds.name(), size, out));
        }
        fixed.putAll(vars);
        return btf.withTypes(fixed);
    }

    /** libbpf's {@code find_elf_var_sym}: the global or weak STT_OBJECT symbol of that name. */
    private static ElfSymbol globalObject(ObjectContext ctx, String name) {
        for (ElfSymbol s : ctx.symbolsNamed(name)) {
            if (s.type() == ElfSymbol.STT_OBJECT && (s.binding() == ElfSymbol.STB_GLOBAL || s.binding() == ElfSymbol.STB_WEAK)) return s;
        }
        return null;
    }
}
