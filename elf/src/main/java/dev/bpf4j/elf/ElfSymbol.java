package dev.bpf4j.elf;

/** One {@code Elf64_Sym} of {@code .symtab} or {@code .dynsym}, with its name resolved. */
public record ElfSymbol(int index, String name, int info, int other, int sectionIndex, long value, long size) {
    public static final int STB_LOCAL = 0, STB_GLOBAL = 1, STB_WEAK = 2;
    public static final int STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3, STT_FILE = 4, STT_GNU_IFUNC = 10;
    public static final int STV_DEFAULT = 0, STV_INTERNAL = 1, STV_HIDDEN = 2;
    public static final int SHN_UNDEF = 0, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2;

    public int binding() { return info >>> 4; }

    public int type() { return info & 0xf; }

    public int visibility() { return other & 0x3; }

    public boolean isUndefined() { return sectionIndex == SHN_UNDEF; }

    public String describe() { return "symbol " + index + " '" + name + "'"; }
}
