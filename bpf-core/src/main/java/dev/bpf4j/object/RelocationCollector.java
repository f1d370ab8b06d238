package dev.bpf4j.object;

import dev.bpf4j.elf.ElfRelocation;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Resolves the symbol of every relocation of a code section into what it means, as libbpf's
 * {@code bpf_program__record_reloc}: a call into {@code .text}, a function address, a map, or an
 * address in global data. Nothing is patched here; {@link ProgramLinker} patches the linked copies.
 */
final class RelocationCollector {
    private final ObjectContext ctx;

    private RelocationCollector(ObjectContext ctx) { this.ctx = ctx; }

    static void collect(ObjectContext ctx) {
        RelocationCollector c = new RelocationCollector(ctx);
        for (CodeSection code : FunctionTable.codeSections(ctx)) {
            int n = 0;
            for (ElfRelocation rel : ctx.elf.relocationsFor(code.section.index())) c.record(code, rel, n++);
        }
    }

    private void record(CodeSection code, ElfRelocation rel, int relNo) {
        String where = "section '" + code.name() + "' relocation #" + relNo;
        if (rel.offset() < 0 || rel.offset() % Insn.SIZE != 0 || rel.offset() / Insn.SIZE >= code.insns.length) {
            throw error("%s: offset 0x%x is not an instruction of the section (%d instructions)", where, rel.offset(), code.insns.length);
        }
        int idx = (int) (rel.offset() / Insn.SIZE);
        // Like libbpf: a relocation outside every function (an overridden weak function) is skipped.
        if (code.functionAt(idx) == null) return;
        ElfSymbol sym = ctx.elf.symbol(rel.symbolIndex());
        where += " at insn " + idx + " against '" + sym.name() + "'";
        Insn insn = code.insns[idx];
        if (insn.opcode() == (Opcodes.JMP | Opcodes.CALL)) {
            code.relocs.put(idx, call(where, insn, rel, sym));
        } else if (insn.isLddw()) {
            expectType(where, rel, ElfRelocation.R_BPF_64_64);
            if (idx + 1 >= code.insns.length) throw error("%s: lddw has no second slot", where);
            code.relocs.put(idx, lddw(where, insn, sym));
        } else {
            throw error("%s: instruction 0x%02x is neither lddw nor call (%s)", where, insn.opcode(), ElfRelocation.typeName(rel.type()));
        }
    }

    private static void expectType(String where, ElfRelocation rel, int type) {
        if (rel.type() != type) {
            throw error("%s: %s where %s was expected", where, ElfRelocation.typeName(rel.type()), ElfRelocation.typeName(type));
        }
    }

    private CodeSection.Reloc call(String where, Insn insn, ElfRelocation rel, ElfSymbol sym) {
        if (insn.src() == Opcodes.PSEUDO_KFUNC_CALL || (sym.isUndefined() && insn.src() != Opcodes.CALL_HELPER)) {
            throw error("%s: calls to kernel functions (kfuncs) are not supported yet", where);
        }
        if (insn.src() != Opcodes.PSEUDO_CALL) throw error("%s: relocation on a helper call (src %d)", where, insn.src());
        expectType(where, rel, ElfRelocation.R_BPF_64_32);
        if (ctx.textIndex < 0 || sym.sectionIndex() != ctx.textIndex) {
            throw error("%s: bad call relocation: subprograms must be in .text, the symbol is in section %d", where, sym.sectionIndex());
        }
        if (sym.value() % Insn.SIZE != 0) throw error("%s: symbol value %d is not a multiple of 8", where, sym.value());
        // libbpf: sub_insn_idx = sym_off / 8 + imm + 1 (imm is -1 for global functions).
        long target = sym.value() / Insn.SIZE + insn.imm() + 1;
        checkText(where, target);
        return new CodeSection.Reloc.Call((int) target, sym.name());
    }

    private void checkText(String where, long target) {
        long n = ctx.elf.section(ctx.textIndex).size() / Insn.SIZE;
        if (target < 0 || target >= n) throw error("%s: target instruction %d is outside .text (%d instructions)", where, target, n);
    }

    private CodeSection.Reloc lddw(String where, Insn insn, ElfSymbol sym) {
        int shndx = sym.sectionIndex();
        if (sym.isUndefined()) {
            Integer off = ctx.kconfigOffsets.get(sym.name());
            if (off == null) throw error("%s: unresolved extern '%s' (only __kconfig externs are supported)", where, sym.name());
            return new CodeSection.Reloc.MapRef(MapReference.Kind.VALUE, ctx.kconfigMapName, off, sym.name());
        }
        if (shndx == ElfSymbol.SHN_COMMON) throw error("%s: common symbols are not supported, compile with -fno-common", where);
        if (shndx >= 0xff00) throw error("%s: symbol is in reserved section 0x%x", where, shndx);
        if (shndx == ctx.textIndex) {
            long byteOff = sym.value() + insn.imm();
            if (byteOff % Insn.SIZE != 0) throw error("%s: function address offset %d is not a multiple of 8", where, byteOff);
            checkText(where, byteOff / Insn.SIZE);
            return new CodeSection.Reloc.FuncAddr((int) (byteOff / Insn.SIZE), sym.name());
        }
        if (shndx == ctx.btfMapsIndex || shndx == ctx.legacyMapsIndex) {
            String map = ctx.mapsByDefinition.get(new ObjectContext.Definition(shndx, sym.value()));
            if (map == null) throw error("%s: no map is defined at offset %d of section %d", where, sym.value(), shndx);
            return new CodeSection.Reloc.MapRef(MapReference.Kind.MAP, map, 0, sym.name());
        }
        String data = ctx.dataMaps.get(shndx);
        if (data != null) {
            long off = insn.imm() + sym.value();
            MapSpec m = ctx.maps.get(data);
            if (off < 0 || off >= m.valueSize()) throw error("%s: offset %d is outside global data map '%s' (%d bytes)", where, off, data, m.valueSize());
            return new CodeSection.Reloc.MapRef(MapReference.Kind.VALUE, data, (int) off, sym.name());
        }
        ElfSection s = ctx.elf.section(shndx);
        throw error("%s: %s is neither .text, a map section nor global data", where, s.describe());
    }
}
