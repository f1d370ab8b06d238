package dev.bpf4j.object;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Splits every executable section into functions by its STT_FUNC symbols, as libbpf's
 * {@code bpf_object__add_programs}: several programs may share a section; programs outside
 * {@code .text} must be global; {@code .text} holds the subprograms.
 */
final class FunctionTable {
    private FunctionTable() {}

    static void parse(ObjectContext ctx) {
        for (ElfSection s : ctx.elf.sections()) {
            if (s.type() != ElfSection.SHT_PROGBITS || !s.isExecutable() || s.size() == 0) continue;
            if (s.size() % Insn.SIZE != 0) throw error("%s size %d is not a multiple of %d (truncated instruction)", s.describe(), s.size(), Insn.SIZE);
            CodeSection code = new CodeSection(s, decode(ctx.elf.view(s)));
            for (ElfSymbol sym : ctx.allSymbolsIn(s.index())) {
                if (sym.type() == ElfSymbol.STT_FUNC) code.functions.add(function(ctx, code, sym));
            }
            code.functions.sort(Comparator.comparingInt(Function::start));
            for (int i = 1; i < code.functions.size(); i++) {
                Function a = code.functions.get(i - 1), b = code.functions.get(i);
                if (b.start() < a.start() + a.length()) throw error("section '%s': functions '%s' and '%s' overlap", s.name(), a.name(), b.name());
            }
            ctx.functions.addAll(code.functions);
            if (s.index() == ctx.textIndex) ctx.text = code;
        }
        ctx.functions.sort(Comparator.comparingInt((Function f) -> f.code().section.index()).thenComparingInt(Function::start));
    }

    private static Insn[] decode(ByteView v) {
        Insn[] out = new Insn[v.length() / Insn.SIZE];
        byte[] raw = v.bytes(0, v.length());
        for (int i = 0; i < out.length; i++) out[i] = Insn.decode(raw, i * Insn.SIZE);
        return out;
    }

    private static Function function(ObjectContext ctx, CodeSection code, ElfSymbol sym) {
        String sec = code.name();
        if (sym.name().isEmpty()) throw error("section '%s': %s has no name", sec, sym.describe());
        long size = code.section.size();
        if (sym.value() < 0 || sym.value() % Insn.SIZE != 0 || sym.size() <= 0 || sym.size() % Insn.SIZE != 0
                || sym.value() > size || sym.size() > size - sym.value()) {
            throw error("section '%s': function '%s' at offset %d with size %d does not fit the section (%d bytes) in whole instructions",
                    sec, sym.name(), sym.value(), sym.size(), size);
        }
        if (code.section.index() != ctx.textIndex && sym.binding() == ElfSymbol.STB_LOCAL) {
            throw error("section '%s': program '%s' is static; programs must be global functions (as in libbpf)", sec, sym.name());
        }
        return new Function(sym.name(), code, (int) (sym.value() / Insn.SIZE), (int) (sym.size() / Insn.SIZE));
    }

    static List<Function> programs(ObjectContext ctx) {
        List<Function> out = new ArrayList<>();
        for (Function f : ctx.functions) if (f.code().section.index() != ctx.textIndex) out.add(f);
        return out;
    }

    /** The {@code .text} function that contains instruction {@code insn}, or null. */
    static Function textFunctionAt(ObjectContext ctx, long insn) {
        return ctx.text == null ? null : ctx.text.functionAt(insn);
    }

    /** Code sections that hold at least one function, in section order. */
    static List<CodeSection> codeSections(ObjectContext ctx) {
        List<CodeSection> out = new ArrayList<>();
        for (Function f : ctx.functions) if (out.isEmpty() || out.get(out.size() - 1) != f.code()) out.add(f.code());
        return out;
    }
}
