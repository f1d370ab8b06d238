package dev.bpf4j.elf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes small ELF64 little-endian EM_BPF relocatable files for tests that need shapes clang does
 * not produce (huge symbol counts, hostile string tables). Sections get consecutive indices from 1;
 * {@link #build()} appends .shstrtab last.
 */
public final class ElfBuilder {
    private record Section(String name, int type, long flags, byte[] data, int link, int info, long entsize) {}

    private final List<Section> sections = new ArrayList<>();

    /** Adds a section and returns its index. */
    public int section(String name, int type, long flags, byte[] data, int link, int info, long entsize) {
        sections.add(new Section(name, type, flags, data, link, info, entsize));
        return sections.size();
    }

    public int code(String name, byte[] insns) {
        return section(name, ElfSection.SHT_PROGBITS, ElfSection.SHF_ALLOC | ElfSection.SHF_EXECINSTR, insns, 0, 0, 0);
    }

    /** One Elf64_Sym. */
    public static void symbol(ByteBuffer out, int nameOff, int bind, int type, int shndx, long value, long size) {
        out.putInt(nameOff).put((byte) (bind << 4 | type)).put((byte) 0).putShort((short) shndx).putLong(value).putLong(size);
    }

    /** One Elf64_Rel. */
    public static void rel(ByteBuffer out, long offset, int sym, int type) {
        out.putLong(offset).putLong((long) sym << 32 | type);
    }

    public static ByteBuffer buffer(int size) { return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN); }

    public byte[] build() {
        ByteArrayOutputStream names = new ByteArrayOutputStream();
        names.write(0);
        int[] nameOff = new int[sections.size() + 1];
        for (int i = 0; i < sections.size(); i++) {
            nameOff[i] = names.size();
            names.writeBytes(sections.get(i).name().getBytes(StandardCharsets.UTF_8));
            names.write(0);
        }
        nameOff[sections.size()] = names.size();
        names.writeBytes(".shstrtab\0".getBytes(StandardCharsets.UTF_8));
        List<Section> all = new ArrayList<>(sections);
        all.add(new Section(".shstrtab", ElfSection.SHT_STRTAB, 0, names.toByteArray(), 0, 0, 0));

        long[] offsets = new long[all.size()];
        long pos = 64;
        for (int i = 0; i < all.size(); i++) {
            pos = (pos + 7) & ~7L;
            offsets[i] = pos;
            if (all.get(i).type() != ElfSection.SHT_NOBITS) pos += all.get(i).data().length;
        }
        long shoff = (pos + 7) & ~7L;
        int shnum = all.size() + 1;
        ByteBuffer b = buffer((int) (shoff + 64L * shnum));
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
        b.putShort(16, (short) ElfFile.ET_REL).putShort(18, (short) ElfFile.EM_BPF).putInt(20, 1);
        b.putLong(40, shoff).putShort(52, (short) 64).putShort(58, (short) 64).putShort(60, (short) shnum).putShort(62, (short) (shnum - 1));
        for (int i = 0; i < all.size(); i++) {
            Section s = all.get(i);
            if (s.type() != ElfSection.SHT_NOBITS) b.put((int) offsets[i], s.data());
            int h = (int) (shoff + 64L * (i + 1));
            b.putInt(h, nameOff[i]).putInt(h + 4, s.type()).putLong(h + 8, s.flags()).putLong(h + 24, offsets[i])
                    .putLong(h + 32, s.data().length).putInt(h + 40, s.link()).putInt(h + 44, s.info()).putLong(h + 48, 8).putLong(h + 56, s.entsize());
        }
        return b.array();
    }
}
