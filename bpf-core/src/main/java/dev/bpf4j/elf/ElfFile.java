package dev.bpf4j.elf;

import dev.bpf4j.runtime.BpfLoadException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.bpf4j.elf.LoadPhase.error;

/**
 * A relocatable ELF64 little-endian file as {@code clang -target bpf} writes it: header, section
 * headers and their names, {@code .symtab} and every {@code SHT_REL} section. Parsing validates
 * every offset, size and index against the file and reports problems as {@link BpfLoadException}s
 * that name the phase ("load sections: ...") and the offending section or symbol.
 */
public final class ElfFile {
    public static final int EM_BPF = 247;
    public static final int ET_REL = 1;
    private static final int EHDR_SIZE = 64, SHDR_SIZE = 64, SYM_SIZE = 24, REL_SIZE = 16;
    private static final int SHN_LORESERVE = 0xff00, SHN_XINDEX = 0xffff;

    private final ByteView file;
    private final int type;
    private final int machine;
    private final List<ElfSection> sections;
    private final List<ElfSymbol> symbols;
    private final ElfSection symtab;
    /** SHT_REL sections by the index of the section they apply to; parsed only when asked for. */
    private final Map<Integer, List<ElfSection>> relSections;
    private final Map<Integer, List<ElfRelocation>> relocations = new HashMap<>();

    private ElfFile(ByteView file, int type, int machine, List<ElfSection> sections, ElfSection symtab,
                    List<ElfSymbol> symbols, Map<Integer, List<ElfSection>> relSections) {
        this.file = file;
        this.type = type;
        this.machine = machine;
        this.sections = sections;
        this.symtab = symtab;
        this.symbols = symbols;
        this.relSections = relSections;
    }

    /** Parses {@code data}; the array must not be changed afterwards (sections are read from it lazily). */
    public static ElfFile parse(byte[] data) {
        ByteView file = ByteView.of(data, "file");
        Header h = LoadPhase.run("load ELF header", () -> readHeader(file));
        List<ElfSection> sections = LoadPhase.run("load sections", () -> readSections(file, h));
        ElfSection symtab = LoadPhase.run("load symbols", () -> findSymtab(sections));
        List<ElfSymbol> symbols = LoadPhase.run("load symbols", () -> readSymbols(file, sections, symtab));
        Map<Integer, List<ElfSection>> rels = new HashMap<>();
        for (ElfSection s : sections) {
            if (s.type() == ElfSection.SHT_REL) rels.computeIfAbsent(s.info(), k -> new ArrayList<>()).add(s);
        }
        return new ElfFile(file, h.type, h.machine, sections, symtab, symbols, rels);
    }

    private record Header(int type, int machine, long shoff, int shnum, int shstrndx) {}

    private static Header readHeader(ByteView f) {
        if (f.length() < EHDR_SIZE) throw error("file is %d bytes, shorter than an ELF64 header (64 bytes)", f.length());
        if (f.u8(0) != 0x7f || f.u8(1) != 'E' || f.u8(2) != 'L' || f.u8(3) != 'F') throw error("not an ELF file (bad magic)");
        if (f.u8(4) != 2) throw error("ELF class %d is not ELFCLASS64", f.u8(4));
        if (f.u8(5) != 1) throw error("ELF data encoding %d is not little-endian (ELFDATA2LSB); big-endian BPF objects are not supported", f.u8(5));
        if (f.u8(6) != 1) throw error("ELF version %d is not EV_CURRENT", f.u8(6));
        int type = f.u16(16);
        int machine = f.u16(18);
        // libbpf also accepts EM_NONE, which old LLVM versions wrote.
        if (machine != EM_BPF && machine != 0) throw error("machine %d is not EM_BPF (247): not a BPF object", machine);
        if (type != ET_REL) throw error("ELF type %d is not ET_REL: expected a relocatable object from clang -c", type);
        long shoff = f.u64(40);
        int shentsize = f.u16(58);
        int shnum = f.u16(60);
        int shstrndx = f.u16(62);
        if (shoff == 0) throw error("file has no section header table");
        if (shentsize != SHDR_SIZE) throw error("section header size %d is not %d", shentsize, SHDR_SIZE);
        if (!f.contains(shoff, SHDR_SIZE)) throw error("section header table offset 0x%x is past end of file (%d bytes)", shoff, f.length());
        // Extended numbering: the real count and string-table index live in section 0.
        if (shnum == 0) {
            long n = f.u64(shoff + 32);
            if (n <= 0 || n > Integer.MAX_VALUE) throw error("extended section count %d is invalid", n);
            shnum = (int) n;
        }
        if (shstrndx == SHN_XINDEX) shstrndx = f.s32(shoff + 40);
        if (!f.contains(shoff, (long) shnum * SHDR_SIZE)) {
            throw error("section header table (offset 0x%x, %d entries of %d bytes) extends past end of file (%d bytes)",
                    shoff, shnum, SHDR_SIZE, f.length());
        }
        if (shstrndx <= 0 || shstrndx >= shnum) {
            throw error("section name table index %d is not a section (file has %d)", shstrndx, shnum);
        }
        return new Header(type, machine, shoff, shnum, shstrndx);
    }

    private static List<ElfSection> readSections(ByteView f, Header h) {
        long[][] raw = new long[h.shnum][];
        for (int i = 0; i < h.shnum; i++) {
            long p = h.shoff + (long) i * SHDR_SIZE;
            raw[i] = new long[] {f.u32(p), f.u32(p + 4), f.u64(p + 8), f.u64(p + 24), f.u64(p + 32),
                    f.u32(p + 40), f.u32(p + 44), f.u64(p + 48), f.u64(p + 56)};
        }
        long[] strHdr = raw[h.shstrndx];
        if (strHdr[1] != ElfSection.SHT_STRTAB) throw error("section name table (section %d) has type %d, not SHT_STRTAB", h.shstrndx, strHdr[1]);
        checkExtent(f, h.shstrndx, "<section names>", strHdr[3], strHdr[4]);
        StringTable names = new StringTable(f.slice(strHdr[3], strHdr[4], "section name table"));
        List<ElfSection> out = new ArrayList<>(h.shnum);
        for (int i = 0; i < h.shnum; i++) {
            long[] r = raw[i];
            String name = i == 0 ? "" : names.get(r[0], "name of section " + i);
            ElfSection s = new ElfSection(i, name, (int) r[1], r[2], r[3], r[4], (int) r[5], (int) r[6], r[7], r[8]);
            if (s.hasFileData()) checkExtent(f, i, name, s.offset(), s.size());
            out.add(s);
        }
        return Collections.unmodifiableList(out);
    }

    private static void checkExtent(ByteView f, int index, String name, long offset, long size) {
        if (!f.contains(offset, size)) {
            throw error("section %d '%s' extends past end of file (offset 0x%x, size %s, file %d bytes)",
                    index, name, offset, Long.toUnsignedString(size), f.length());
        }
    }

    private static ElfSection findSymtab(List<ElfSection> sections) {
        ElfSection found = null;
        for (ElfSection s : sections) {
            if (s.type() != ElfSection.SHT_SYMTAB) continue;
            if (found != null) throw error("multiple symbol tables: %s and %s", found.describe(), s.describe());
            found = s;
        }
        return found;
    }

    private static List<ElfSymbol> readSymbols(ByteView f, List<ElfSection> sections, ElfSection symtab) {
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

    /**
     * Reads one SHT_REL section. Like libbpf, only the relocation sections a loader asks for are
     * read (those of code and {@code .maps}); damaged {@code .rel.debug_*} sections do not matter.
     */
    private List<ElfRelocation> readRelocations(ElfSection s) {
        if (symtab == null || s.link() != symtab.index()) {
            throw error("%s links to section %d, which is not the symbol table", s.describe(), s.link());
        }
        if (s.entsize() != REL_SIZE || s.size() % REL_SIZE != 0) {
            throw error("%s has entry size %d and size %d; expected %d-byte Elf64_Rel entries", s.describe(), s.entsize(), s.size(), REL_SIZE);
        }
        ByteView table = file.slice(s.offset(), s.size(), s.describe());
        int n = (int) (s.size() / REL_SIZE);
        List<ElfRelocation> rels = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long offset = table.u64((long) i * REL_SIZE);
            long info = table.u64((long) i * REL_SIZE + 8);
            long sym = info >>> 32;
            if (sym >= symbols.size()) {
                throw error("%s entry %d refers to symbol %d, but .symtab has %d symbols", s.describe(), i, sym, symbols.size());
            }
            rels.add(new ElfRelocation(offset, (int) sym, (int) info));
        }
        return Collections.unmodifiableList(rels);
    }

    public int type() { return type; }

    public int machine() { return machine; }

    public List<ElfSection> sections() { return sections; }

    public ElfSection section(int index) {
        if (index < 0 || index >= sections.size()) throw error("section index %d out of range (file has %d sections)", index, sections.size());
        return sections.get(index);
    }

    /** The first section with this name, if any. */
    public Optional<ElfSection> section(String name) {
        for (ElfSection s : sections) if (s.name().equals(name)) return Optional.of(s);
        return Optional.empty();
    }

    /** The contents of a section; {@code SHT_NOBITS} sections have none (an empty view). */
    public ByteView view(ElfSection s) {
        if (!s.hasFileData()) return file.slice(0, 0, s.describe());
        return file.slice(s.offset(), s.size(), s.describe());
    }

    public byte[] data(ElfSection s) {
        ByteView v = view(s);
        return v.bytes(0, v.length());
    }

    public Optional<ElfSection> symbolTable() { return Optional.ofNullable(symtab); }

    public List<ElfSymbol> symbols() { return symbols; }

    public ElfSymbol symbol(int index) {
        if (index < 0 || index >= symbols.size()) throw error("symbol index %d out of range (.symtab has %d symbols)", index, symbols.size());
        return symbols.get(index);
    }

    /** The relocations that apply to section {@code targetIndex} (empty when it has none), read and checked on first use. */
    public synchronized List<ElfRelocation> relocationsFor(int targetIndex) {
        List<ElfRelocation> cached = relocations.get(targetIndex);
        if (cached != null) return cached;
        List<ElfSection> secs = relSections.getOrDefault(targetIndex, List.of());
        List<ElfRelocation> out = LoadPhase.run("load relocations", () -> {
            if (secs.isEmpty()) return List.<ElfRelocation>of();
            if (secs.size() > 1) throw error("%s and %s both apply to section %d", secs.get(0).describe(), secs.get(1).describe(), targetIndex);
            return readRelocations(secs.get(0));
        });
        relocations.put(targetIndex, out);
        return out;
    }

    public boolean hasRelocations(int targetIndex) { return relSections.containsKey(targetIndex); }
}
