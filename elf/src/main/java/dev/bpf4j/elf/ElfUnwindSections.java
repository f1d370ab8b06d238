package dev.bpf4j.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What unwinding needs of a native x86-64 ELF file — its program headers, {@code .eh_frame} and
 * {@code .eh_frame_hdr} — read from those parts of the file only. Reading all of libjvm.so (24 MB)
 * to find them cost a profile's unwinder 95–230 ms of CPU at its first sample (a fresh 24 MB array
 * zeroed, then filled); these parts are about 2 MB. {@link #read} returns null for anything unusual
 * (extended numbering, a table past the end, not x86-64) so that the caller falls back to
 * {@link ElfFile#parse}, which names the problem.
 *
 * @param ehFrame {@code .eh_frame}'s bytes, or null when the file has none
 * @param ehFrameHdr {@code .eh_frame_hdr}'s bytes, or null
 */
public record ElfUnwindSections(List<ElfProgramHeader> programHeaders, byte[] ehFrame, long ehFrameAddr,
                                byte[] ehFrameHdr, long ehFrameHdrAddr) {
    private static final int EHDR = 64, SHDR = 64, PHDR = 56, SHT_NOBITS = 8, SHT_NULL = 0;
    private static final long MAX_TABLE = 1 << 24;

    public static ElfUnwindSections read(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path)) {
            long size = ch.size();
            if (size < EHDR) return null;
            ByteView h = ByteView.of(readAt(ch, 0, EHDR), "ELF header");
            if (h.u8(0) != 0x7f || h.u8(1) != 'E' || h.u8(2) != 'L' || h.u8(3) != 'F' || h.u8(4) != 2 || h.u8(5) != 1) return null;
            int type = h.u16(16), machine = h.u16(18);
            if (machine != ElfKind.EM_X86_64 || (type != ElfKind.ET_DYN && type != ElfKind.ET_EXEC)) return null;
            long phoff = h.u64(32), shoff = h.u64(40);
            int phentsize = h.u16(54), phnum = h.u16(56), shentsize = h.u16(58), shnum = h.u16(60), shstrndx = h.u16(62);
            if (shoff == 0 || shentsize != SHDR || shnum == 0 || shstrndx == 0 || shstrndx >= shnum || phnum == 0xffff) return null;
            if (phnum != 0 && phentsize != PHDR) return null;
            if (!within(size, phoff, (long) phnum * PHDR) || !within(size, shoff, (long) shnum * SHDR)) return null;

            ByteView ph = ByteView.of(readAt(ch, phoff, phnum * PHDR), "program headers");
            List<ElfProgramHeader> loads = new ArrayList<>();
            for (int i = 0; i < phnum; i++) {
                long p = (long) i * PHDR;
                ElfProgramHeader e = new ElfProgramHeader(ph.s32(p), ph.s32(p + 4), ph.u64(p + 8), ph.u64(p + 16),
                        ph.u64(p + 32), ph.u64(p + 40), ph.u64(p + 48));
                if (e.isLoad() && Long.compareUnsigned(e.filesz(), e.memsz()) > 0) return null;
                loads.add(e);
            }
            ByteView sh = ByteView.of(readAt(ch, shoff, shnum * SHDR), "section headers");
            long strOff = sh.u64((long) shstrndx * SHDR + 24), strSize = sh.u64((long) shstrndx * SHDR + 32);
            if (!within(size, strOff, strSize) || strSize > MAX_TABLE) return null;
            ByteView names = ByteView.of(readAt(ch, strOff, (int) strSize), "section names");
            byte[] eh = null, hdr = null;
            long ehAddr = 0, hdrAddr = 0;
            boolean seenEh = false, seenHdr = false;
            for (int i = 1; i < shnum; i++) {
                long s = (long) i * SHDR;
                long nameOff = sh.u32(s);
                if (nameOff >= strSize) return null;
                String name = names.cString(nameOff, "section name");
                // The first section of each name, as ElfFile.section(name) finds it; without file data it counts as none.
                boolean isEh = name.equals(".eh_frame") && !seenEh, isHdr = name.equals(".eh_frame_hdr") && !seenHdr;
                if (!isEh && !isHdr) continue;
                seenEh |= isEh;
                seenHdr |= isHdr;
                long shType = sh.u32(s + 4), addr = sh.u64(s + 16), off = sh.u64(s + 24), len = sh.u64(s + 32);
                if (shType == SHT_NOBITS || shType == SHT_NULL) continue;
                if (!within(size, off, len) || len > Integer.MAX_VALUE) return null;
                if (isEh) {
                    eh = readAt(ch, off, (int) len);
                    ehAddr = addr;
                } else {
                    hdr = readAt(ch, off, (int) len);
                    hdrAddr = addr;
                }
            }
            return new ElfUnwindSections(List.copyOf(loads), eh, ehAddr, hdr, hdrAddr);
        } catch (ElfFormatException | IndexOutOfBoundsException e) {
            return null;   // let the full parse say what is wrong
        }
    }

    private static boolean within(long fileSize, long offset, long length) {
        return offset >= 0 && length >= 0 && length <= fileSize && offset <= fileSize - length;
    }

    private static byte[] readAt(FileChannel ch, long position, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (ch.read(b, position + b.position()) < 0) throw new IOException("file ends at " + (position + b.position()));
        }
        return b.array();
    }
}
