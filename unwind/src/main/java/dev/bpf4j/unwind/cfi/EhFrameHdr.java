package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfFormatException;

/**
 * {@code .eh_frame_hdr} (LSB "Exception Frames"): version 1, the {@code .eh_frame} pointer, and a
 * table of (initial pc, FDE address) sorted by pc, searched by bisection as glibc's
 * {@code _Unwind_Find_FDE} does. Table entries must have a fixed size to be searched; a header
 * without a searchable table reports {@link #searchable()} false and the caller scans
 * {@code .eh_frame} instead.
 */
public final class EhFrameHdr {
    private final ByteView data;
    private final long vaddr;
    private final long ehFramePtr;
    private final int tableEncoding;
    private final long tableStart;
    private final int entrySize;
    private final int count;
    /** The table decoded once: searched on every unwind step, so no decoding on the hot path. */
    private final long[] pcs, fdes;

    /** @param vaddr the ELF virtual address of the section's first byte (the base of datarel pointers) */
    public EhFrameHdr(ByteView data, long vaddr) {
        this.data = data;
        this.vaddr = vaddr;
        try {
            CfiCursor c = new CfiCursor(data, vaddr, 0, data.length());
            int version = c.u8();
            if (version != 1) throw CfiFormatException.of("version %d (expected 1)", version);
            int ptrEnc = c.u8(), countEnc = c.u8(), tableEnc = c.u8();
            PointerEncoding.check(ptrEnc, "eh_frame_ptr");
            ehFramePtr = ptrEnc == PointerEncoding.OMIT ? 0 : c.pointer(ptrEnc, vaddr, "eh_frame_ptr");
            long n = 0;
            int size = -1;
            if (countEnc != PointerEncoding.OMIT && tableEnc != PointerEncoding.OMIT) {
                PointerEncoding.check(countEnc, "fde_count");
                PointerEncoding.check(tableEnc, "table");
                n = c.pointer(countEnc, vaddr, "fde_count");
                size = PointerEncoding.fixedSize(tableEnc);
                if (size > 0 && (n < 0 || n > (data.length() - c.pos()) / (2L * size))) {
                    throw CfiFormatException.of("%s table entries of %d bytes do not fit in %d bytes", Long.toUnsignedString(n), 2 * size, data.length());
                }
            }
            tableEncoding = tableEnc;
            tableStart = c.pos();
            entrySize = size;
            count = size > 0 ? (int) n : 0;
            pcs = new long[count];
            fdes = new long[count];
            for (int i = 0; i < count; i++) {
                pcs[i] = field(i, 0);
                fdes[i] = field(i, 1);
                if (i > 0 && Long.compareUnsigned(pcs[i - 1], pcs[i]) > 0) {
                    throw CfiFormatException.of("table entry %d (pc 0x%x) is below entry %d (pc 0x%x): not sorted", i, pcs[i], i - 1, pcs[i - 1]);
                }
            }
        } catch (CfiFormatException e) {
            throw CfiFormatException.of(".eh_frame_hdr: %s", e.getMessage());
        } catch (ElfFormatException e) {
            throw new CfiFormatException(".eh_frame_hdr: " + e.getMessage(), e);
        }
    }

    /** The address of {@code .eh_frame} the header names. */
    public long ehFramePtr() { return ehFramePtr; }

    public boolean searchable() { return entrySize > 0; }

    public int count() { return count; }

    /** Initial pc of entry {@code i}. */
    public long pc(int i) { return pcs[i]; }

    /** FDE address of entry {@code i}. */
    public long fdeAddress(int i) { return fdes[i]; }

    private long field(int i, int which) {
        long at = tableStart + (2L * i + which) * entrySize;
        return new CfiCursor(data, vaddr, at, at + entrySize).pointer(tableEncoding, vaddr, "table entry");
    }

    /** The index of the last entry whose pc is at most {@code pc}, or -1. */
    public int search(long pc) {
        int lo = 0, hi = count - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(pcs[mid], pc) <= 0) { found = mid; lo = mid + 1; } else hi = mid - 1;
        }
        return found;
    }
}
