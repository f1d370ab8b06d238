package dev.bpf4j.fuzz;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSection;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Where the parts of a (well-formed) BPF object lie in its bytes, for {@link ObjectMutator}: the ELF and
 * section headers, the symbol and relocation tables, the string tables, the {@code .BTF} header, type
 * records and strings, {@code .BTF.ext}, the program sections' instructions, legacy map definitions and
 * global data. Computed once per seed object; mutants are never parsed again by the layout.
 */
final class ElfLayout {
    enum Part { ELF_HEADER, SECTION_HEADERS, SYMBOLS, RELOCATIONS, STRINGS, BTF_HEADER, BTF_TYPES, BTF_STRINGS, BTF_EXT, CODE, MAP_DEFS, DATA }

    /** {@code size} bytes at {@code offset}, made of entries of {@code stride} bytes (1: no structure). */
    record Region(Part part, int offset, int size, int stride) {
        int entries() { return size / stride; }
        int entry(int i) { return offset + i * stride; }
    }

    /** A BTF type record: its offset in the file, length, and kind. */
    record BtfRecord(int offset, int length, int kind) {}

    /** Section name offsets in the section header string table, with each name's length (room to rename). */
    record SectionName(int offset, int length, boolean program) {}

    static final int BTF_KIND_ARRAY = 3;

    private final Map<Part, List<Region>> regions = new EnumMap<>(Part.class);
    private final List<BtfRecord> btfRecords = new ArrayList<>();
    private final List<SectionName> sectionNames = new ArrayList<>();
    private int symbolCount, sectionCount;

    private ElfLayout() {}

    /** The layout of {@code elf}, which must parse (a seed object). */
    static ElfLayout of(byte[] elf) {
        ElfLayout l = new ElfLayout();
        ElfFile f = ElfFile.parse(elf);
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        l.add(Part.ELF_HEADER, 0, 64, 1);
        int shoff = (int) b.getLong(40);
        int shstrndx = Short.toUnsignedInt(b.getShort(62));
        l.sectionCount = f.sections().size();
        l.add(Part.SECTION_HEADERS, shoff, l.sectionCount * 64, 64);
        ElfSection shstrtab = f.sections().get(shstrndx);
        for (ElfSection s : f.sections()) {
            if (!s.hasFileData() || s.size() == 0 || s.offset() + s.size() > elf.length) continue;
            int off = (int) s.offset(), size = (int) s.size();
            int nameOff = b.getInt(shoff + s.index() * 64);
            if (s.index() != 0) l.sectionNames.add(new SectionName((int) shstrtab.offset() + nameOff, s.name().length(), s.isExecutable()));
            if (s.type() == ElfSection.SHT_SYMTAB) {
                l.add(Part.SYMBOLS, off, size, 24);
                l.symbolCount = size / 24;
            } else if (s.type() == ElfSection.SHT_REL) {
                if (!s.name().contains("debug")) l.add(Part.RELOCATIONS, off, size, 16);
            } else if (s.type() == ElfSection.SHT_STRTAB) {
                l.add(Part.STRINGS, off, size, 1);
            } else if (s.name().equals(".BTF")) {
                l.btf(b, off, size);
            } else if (s.name().equals(".BTF.ext")) {
                l.add(Part.BTF_EXT, off, size, 4);
            } else if (s.isExecutable()) {
                l.add(Part.CODE, off, size, 8);
            } else if (s.name().equals("maps")) {
                l.add(Part.MAP_DEFS, off, size, 4);
            } else if (s.name().startsWith(".data") || s.name().startsWith(".rodata")) {
                l.add(Part.DATA, off, size, 1);
            }
        }
        return l;
    }

    /** The header, each type record (walked with the kinds' record sizes) and the string section. */
    private void btf(ByteBuffer b, int off, int size) {
        if (size < 24 || Short.toUnsignedInt(b.getShort(off)) != 0xeb9f) return;
        int hdrLen = b.getInt(off + 4), typeOff = b.getInt(off + 8), typeLen = b.getInt(off + 12);
        int strOff = b.getInt(off + 16), strLen = b.getInt(off + 20);
        add(Part.BTF_HEADER, off, Math.min(hdrLen, size), 4);
        int start = off + hdrLen + typeOff, end = start + typeLen;
        add(Part.BTF_TYPES, start, typeLen, 4);
        add(Part.BTF_STRINGS, off + hdrLen + strOff, strLen, 1);
        for (int p = start; p + 12 <= end; ) {
            int info = b.getInt(p + 4);
            int kind = (info >>> 24) & 0x1f, vlen = info & 0xffff;
            int extra = switch (kind) {
                case 1, 8, 14 -> 4;                 // INT, VAR, DECL_TAG
                case 3 -> 12;                       // ARRAY
                case 4, 5, 15 -> 12 * vlen;         // STRUCT, UNION, DATASEC
                case 6, 13 -> 8 * vlen;             // ENUM, FUNC_PROTO
                case 19 -> 12 * vlen;               // ENUM64
                case 2, 7, 9, 10, 11, 12, 16, 17, 18 -> 0;
                default -> -1;
            };
            if (extra < 0 || p + 12 + extra > end) break;
            btfRecords.add(new BtfRecord(p, 12 + extra, kind));
            p += 12 + extra;
        }
    }

    private void add(Part part, int offset, int size, int stride) {
        if (size < stride || offset < 0) return;
        regions.computeIfAbsent(part, k -> new ArrayList<>()).add(new Region(part, offset, size - size % stride, stride));
    }

    List<Region> regions(Part part) { return regions.getOrDefault(part, List.of()); }

    boolean has(Part part) { return !regions(part).isEmpty(); }

    List<BtfRecord> btfRecords() { return btfRecords; }

    List<SectionName> sectionNames() { return sectionNames; }

    int symbolCount() { return symbolCount; }

    int sectionCount() { return sectionCount; }
}
