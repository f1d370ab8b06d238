package dev.bpf4j.elf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.bpf4j.elf.ElfPhase.error;

/**
 * An ELF64 little-endian file: a relocatable BPF object as {@code clang -target bpf} writes it, or
 * an x86-64 executable or shared object ({@link ElfKind}). Read: header, section headers and their
 * names, {@code .symtab}, {@code .dynsym}, program headers and every {@code SHT_REL} section.
 * Parsing validates every offset, size and index against the file and reports problems as
 * {@link ElfFormatException}s that name the phase ("load sections: ...") and the offending section
 * or symbol.
 */
public final class ElfFile {
    public static final int EM_BPF = ElfKind.EM_BPF;
    public static final int EM_X86_64 = ElfKind.EM_X86_64;
    public static final int ET_REL = ElfKind.ET_REL, ET_EXEC = ElfKind.ET_EXEC, ET_DYN = ElfKind.ET_DYN;
    private static final int SHDR_SIZE = ElfHeader.SHDR_SIZE, PHDR_SIZE = ElfHeader.PHDR_SIZE, REL_SIZE = 16;

    private final ByteView file;
    private final int type;
    private final int machine;
    private final List<ElfSection> sections;
    private final List<ElfSymbol> symbols;
    private final ElfSection symtab;
    private final List<ElfSymbol> dynamicSymbols;
    private final List<ElfProgramHeader> programHeaders;
    /** SHT_REL sections by the index of the section they apply to; parsed only when asked for. */
    private final Map<Integer, List<ElfSection>> relSections;
    private final Map<Integer, List<ElfRelocation>> relocations = new HashMap<>();

    private ElfFile(ByteView file, ElfHeader h, List<ElfSection> sections, ElfSection symtab, List<ElfSymbol> symbols,
                    List<ElfSymbol> dynamicSymbols, List<ElfProgramHeader> programHeaders, Map<Integer, List<ElfSection>> relSections) {
        this.file = file;
        this.type = h.type();
        this.machine = h.machine();
        this.sections = sections;
        this.symtab = symtab;
        this.symbols = symbols;
        this.dynamicSymbols = dynamicSymbols;
        this.programHeaders = programHeaders;
        this.relSections = relSections;
    }

    /** Parses a relocatable BPF object; the array must not be changed afterwards (sections are read from it lazily). */
    public static ElfFile parse(byte[] data) { return parse(data, ElfKind.BPF_OBJECT); }

    /** Parses {@code data}, accepting only files of {@code kind}; the array must not be changed afterwards. */
    public static ElfFile parse(byte[] data, ElfKind kind) { return parse(data, kind, true); }

    /**
     * Sections and program headers only: {@link #symbols()} and {@link #dynamicSymbols()} are empty.
     * An unwinder needs a native module's {@code .eh_frame} and load headers, not its symbols, whose
     * reading and sorting (libjvm.so: tens of thousands) cost a profile's unwinder most of its start.
     */
    public static ElfFile parseWithoutSymbols(byte[] data, ElfKind kind) { return parse(data, kind, false); }

    private static ElfFile parse(byte[] data, ElfKind kind, boolean withSymbols) {
        return ElfPhase.guard(() -> {
            ByteView file = ByteView.of(data, "file");
            ElfHeader h = ElfPhase.run("load ELF header", () -> ElfHeader.read(file, kind));
            List<ElfSection> sections = ElfPhase.run("load sections", () -> readSections(file, h));
            List<ElfProgramHeader> phdrs = ElfPhase.run("load program headers", () -> readProgramHeaders(file, h));
            ElfSection symtab = ElfPhase.run("load symbols", () -> ElfSymbolReader.find(sections, ElfSection.SHT_SYMTAB));
            List<ElfSymbol> symbols = !withSymbols ? List.of() : ElfPhase.run("load symbols", () -> ElfSymbolReader.read(file, sections, symtab));
            // A BPF object has no .dynsym; one in it is not looked at, as libbpf does not.
            List<ElfSymbol> dynsyms = kind == ElfKind.BPF_OBJECT || !withSymbols ? List.of() : ElfPhase.run("load dynamic symbols",
                    () -> ElfSymbolReader.read(file, sections, ElfSymbolReader.find(sections, ElfSection.SHT_DYNSYM)));
            Map<Integer, List<ElfSection>> rels = new HashMap<>();
            for (ElfSection s : sections) {
                if (s.type() == ElfSection.SHT_REL) rels.computeIfAbsent(s.info(), k -> new ArrayList<>()).add(s);
            }
            return new ElfFile(file, h, sections, symtab, symbols, dynsyms, phdrs, rels);
        });
    }

    private static List<ElfSection> readSections(ByteView f, ElfHeader h) {
        long[][] raw = new long[h.shnum()][];
        for (int i = 0; i < h.shnum(); i++) {
            long p = h.shoff() + (long) i * SHDR_SIZE;
            raw[i] = new long[] {f.u32(p), f.u32(p + 4), f.u64(p + 8), f.u64(p + 24), f.u64(p + 32),
                    f.u32(p + 40), f.u32(p + 44), f.u64(p + 48), f.u64(p + 56), f.u64(p + 16)};
        }
        long[] strHdr = raw[h.shstrndx()];
        if (strHdr[1] != ElfSection.SHT_STRTAB) throw error("section name table (section %d) has type %d, not SHT_STRTAB", h.shstrndx(), strHdr[1]);
        checkExtent(f, h.shstrndx(), "<section names>", strHdr[3], strHdr[4]);
        StringTable names = new StringTable(f.slice(strHdr[3], strHdr[4], "section name table"));
        List<ElfSection> out = new ArrayList<>(h.shnum());
        for (int i = 0; i < h.shnum(); i++) {
            long[] r = raw[i];
            String name = i == 0 ? "" : names.get(r[0], "name of section " + i);
            ElfSection s = new ElfSection(i, name, (int) r[1], r[2], r[9], r[3], r[4], (int) r[5], (int) r[6], r[7], r[8]);
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

    private static List<ElfProgramHeader> readProgramHeaders(ByteView f, ElfHeader h) {
        List<ElfProgramHeader> out = new ArrayList<>(h.phnum());
        for (int i = 0; i < h.phnum(); i++) {
            long p = h.phoff() + (long) i * PHDR_SIZE;
            ElfProgramHeader ph = new ElfProgramHeader(f.s32(p), f.s32(p + 4), f.u64(p + 8), f.u64(p + 16),
                    f.u64(p + 32), f.u64(p + 40), f.u64(p + 48));
            if (ph.isLoad() && Long.compareUnsigned(ph.filesz(), ph.memsz()) > 0) {
                throw error("program header %d maps %s file bytes into %s bytes of memory", i,
                        Long.toUnsignedString(ph.filesz()), Long.toUnsignedString(ph.memsz()));
            }
            out.add(ph);
        }
        return Collections.unmodifiableList(out);
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

    /** The symbols of {@code .symtab} (empty when the file is stripped). */
    public List<ElfSymbol> symbols() { return symbols; }

    /** The symbols of {@code .dynsym}, what the dynamic loader exports (empty for relocatable objects). */
    public List<ElfSymbol> dynamicSymbols() { return dynamicSymbols; }

    /** The program headers (empty for relocatable objects). */
    public List<ElfProgramHeader> programHeaders() { return programHeaders; }

    public ElfSymbol symbol(int index) {
        if (index < 0 || index >= symbols.size()) throw error("symbol index %d out of range (.symtab has %d symbols)", index, symbols.size());
        return symbols.get(index);
    }

    /** The relocations that apply to section {@code targetIndex} (empty when it has none), read and checked on first use. */
    public synchronized List<ElfRelocation> relocationsFor(int targetIndex) {
        List<ElfRelocation> cached = relocations.get(targetIndex);
        if (cached != null) return cached;
        List<ElfSection> secs = relSections.getOrDefault(targetIndex, List.of());
        List<ElfRelocation> out = ElfPhase.run("load relocations", () -> {
            if (secs.isEmpty()) return List.<ElfRelocation>of();
            if (secs.size() > 1) throw error("%s and %s both apply to section %d", secs.get(0).describe(), secs.get(1).describe(), targetIndex);
            return readRelocations(secs.get(0));
        });
        relocations.put(targetIndex, out);
        return out;
    }

    public boolean hasRelocations(int targetIndex) { return relSections.containsKey(targetIndex); }
}
