package dev.bpf4j.elf;

/** One {@code Elf64_Phdr}: how a part of the file is mapped into memory. */
public record ElfProgramHeader(int type, int flags, long offset, long vaddr, long filesz, long memsz, long align) {
    public static final int PT_LOAD = 1;
    public static final int PF_X = 1, PF_W = 2, PF_R = 4;

    public boolean isLoad() { return type == PT_LOAD; }

    public boolean isExecutable() { return (flags & PF_X) != 0; }

    /**
     * True when file offset {@code fileOffset} lies in this segment's file image, counting the
     * bytes before {@code offset} on its first page (the loader maps whole pages).
     */
    public boolean mapsFileOffset(long fileOffset, long pageSize) {
        long pageStart = offset & -pageSize;
        return Long.compareUnsigned(fileOffset - pageStart, offset - pageStart + filesz) < 0;
    }
}
