package dev.bpf4j.elf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.bpf4j.elf.ElfPhase.error;

/** Reads a symbol table section ({@code .symtab} or {@code .dynsym}) with the string table it links to. */
final class ElfSymbolReader {
    static final int SYM_SIZE = 24;
    private static final int SHN_LORESERVE = 0xff00;

    private ElfSymbolReader() {}

    /** The only section of {@code type}, or null; two of them are an error. */
    static ElfSection find(List<ElfSection> sections, int type) {
        ElfSection found = null;
        for (ElfSection s : sections) {
            if (s.type() != type) continue;
            if (found != null) throw error("multiple symbol tables: %s and %s", found.describe(), s.describe());
            found = s;
        }
        return found;
    }

    static List<ElfSymbol> read(ByteView f, List<ElfSection> sections, ElfSection symtab) {
        if (symtab == null) return List.of();
        if (symtab.entsize() != SYM_SIZE) throw error("%s has entry size %d, not %d", symtab.describe(), symtab.entsize(), SYM_SIZE);
        if (symtab.size() % SYM_SIZE != 0) throw error("%s size %d is not a multiple of %d", symtab.describe(), symtab.size(), SYM_SIZE);
        ElfSection strtab = linked(sections, symtab, ElfSection.SHT_STRTAB, "string table");
        StringTable strings = new StringTable(f.slice(strtab.offset(), strtab.size(), "symbol string table " + strtab.describe()));
        ByteView table = f.slice(symtab.offset(), symtab.size(), "symbol table");
        int n = (int) (symtab.size() / SYM_SIZE);
        List<ElfSymbol> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long p = (long) i * SYM_SIZE;
            long nameOff = table.u32(p);
            String name = nameOff == 0 ? "" : strings.get(nameOff, "name of symbol " + i);
            int shndx = table.u16(p + 6);
            ElfSymbol sym = new ElfSymbol(i, name, table.u8(p + 4), table.u8(p + 5), shndx, table.u64(p + 8), table.u64(p + 16));
            if (shndx != ElfSymbol.SHN_UNDEF && shndx < SHN_LORESERVE && shndx >= sections.size()) {
                throw error("%s refers to section %d, but the file has %d sections", sym.describe(), shndx, sections.size());
            }
            // LLVM leaves section symbols unnamed; name them after their section, as readelf shows them.
            if (name.isEmpty() && sym.type() == ElfSymbol.STT_SECTION && shndx != ElfSymbol.SHN_UNDEF && shndx < SHN_LORESERVE) {
                sym = new ElfSymbol(i, sections.get(shndx).name(), sym.info(), sym.other(), shndx, sym.value(), sym.size());
            }
            out.add(sym);
        }
        return Collections.unmodifiableList(out);
    }

    private static ElfSection linked(List<ElfSection> sections, ElfSection from, int wantType, String what) {
        int link = from.link();
        if (link <= 0 || link >= sections.size()) throw error("%s links to %s section %d, which does not exist", from.describe(), what, link);
        ElfSection s = sections.get(link);
        if (s.type() != wantType) throw error("%s links to %s, which is not a %s (type %d)", from.describe(), s.describe(), what, s.type());
        return s;
    }
}
