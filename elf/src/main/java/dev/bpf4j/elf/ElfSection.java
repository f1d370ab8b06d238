package dev.bpf4j.elf;

/**
 * One ELF64 section header, with its name resolved from the section-name string table; {@code addr}
 * is the section's virtual address in a loaded image (0 in a relocatable object).
 */
public record ElfSection(int index, String name, int type, long flags, long addr, long offset, long size,
                         int link, int info, long addralign, long entsize) {
    public static final int SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4,
            SHT_NOBITS = 8, SHT_REL = 9, SHT_DYNSYM = 11;
    public static final long SHF_WRITE = 0x1, SHF_ALLOC = 0x2, SHF_EXECINSTR = 0x4;

    public boolean isExecutable() { return (flags & SHF_EXECINSTR) != 0; }

    public boolean isWritable() { return (flags & SHF_WRITE) != 0; }

    /** True when the section occupies bytes of the file (everything but {@code SHT_NOBITS} and {@code SHT_NULL}). */
    public boolean hasFileData() { return type != SHT_NOBITS && type != SHT_NULL; }

    /** "section 7 '.text'", the way load errors name a section. */
    public String describe() { return "section " + index + " '" + name + "'"; }
}
