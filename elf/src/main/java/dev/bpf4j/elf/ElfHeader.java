package dev.bpf4j.elf;

import static dev.bpf4j.elf.ElfPhase.error;

/** The fields of the {@code Elf64_Ehdr} the reader needs, validated against the file and the accepted {@link ElfKind}. */
record ElfHeader(int type, int machine, long shoff, int shnum, int shstrndx, long phoff, int phnum) {
    static final int EHDR_SIZE = 64, SHDR_SIZE = 64, PHDR_SIZE = 56;
    private static final int SHN_XINDEX = 0xffff, PN_XNUM = 0xffff;

    static ElfHeader read(ByteView f, ElfKind kind) {
        if (f.length() < EHDR_SIZE) throw error("file is %d bytes, shorter than an ELF64 header (64 bytes)", f.length());
        if (f.u8(0) != 0x7f || f.u8(1) != 'E' || f.u8(2) != 'L' || f.u8(3) != 'F') throw error("not an ELF file (bad magic)");
        if (f.u8(4) != 2) throw error("ELF class %d is not ELFCLASS64", f.u8(4));
        if (f.u8(5) != 1) throw error("ELF data encoding %d is not little-endian (ELFDATA2LSB); big-endian BPF objects are not supported", f.u8(5));
        if (f.u8(6) != 1) throw error("ELF version %d is not EV_CURRENT", f.u8(6));
        int type = f.u16(16);
        int machine = f.u16(18);
        kind.check(type, machine);
        long phoff = f.u64(32);
        long shoff = f.u64(40);
        int phentsize = f.u16(54);
        int phnum = f.u16(56);
        int shentsize = f.u16(58);
        int shnum = f.u16(60);
        int shstrndx = f.u16(62);
        if (shoff == 0) throw error("file has no section header table");
        if (shentsize != SHDR_SIZE) throw error("section header size %d is not %d", shentsize, SHDR_SIZE);
        if (!f.contains(shoff, SHDR_SIZE)) throw error("section header table offset 0x%x is past end of file (%d bytes)", shoff, f.length());
        // Extended numbering: the real counts and string-table index live in section 0.
        if (shnum == 0) {
            long n = f.u64(shoff + 32);
            if (n <= 0 || n > Integer.MAX_VALUE) throw error("extended section count %d is invalid", n);
            shnum = (int) n;
        }
        if (shstrndx == SHN_XINDEX) shstrndx = f.s32(shoff + 40);
        if (phnum == PN_XNUM) phnum = f.s32(shoff + 44);
        if (!f.contains(shoff, (long) shnum * SHDR_SIZE)) {
            throw error("section header table (offset 0x%x, %d entries of %d bytes) extends past end of file (%d bytes)",
                    shoff, shnum, SHDR_SIZE, f.length());
        }
        if (shstrndx <= 0 || shstrndx >= shnum) {
            throw error("section name table index %d is not a section (file has %d)", shstrndx, shnum);
        }
        // Relocatable objects have no program headers; only files meant to be mapped are checked.
        if (phnum != 0 && kind != ElfKind.BPF_OBJECT) {
            if (phentsize != PHDR_SIZE) throw error("program header size %d is not %d", phentsize, PHDR_SIZE);
            if (phnum < 0 || !f.contains(phoff, (long) phnum * PHDR_SIZE)) {
                throw error("program header table (offset 0x%x, %d entries) extends past end of file (%d bytes)", phoff, phnum, f.length());
            }
        } else {
            phnum = 0;
        }
        return new ElfHeader(type, machine, shoff, shnum, shstrndx, phoff, phnum);
    }
}
