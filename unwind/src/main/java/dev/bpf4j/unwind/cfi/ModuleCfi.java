package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfUnwindSections;
import dev.bpf4j.elf.ElfSection;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The call-frame information of one native module: its {@code .eh_frame} and, where present, the
 * {@code .eh_frame_hdr} search table (else an index built by one scan of {@code .eh_frame}).
 * {@link #rowFor} finds the FDE covering a pc (ELF virtual address), runs its instructions once
 * and keeps the rows in a bounded cache. Thread-safe. Bad records throw {@link CfiFormatException}
 * from the lookup that meets them; the rest of the module still works.
 */
public final class ModuleCfi {
    /** Decoded FDEs kept per module; past this the cache starts over (a profile touches few functions). */
    static final int MAX_CACHED_FDES = 4096;
    public static final ModuleCfi NONE = new ModuleCfi(null, null, null);

    private final String name;
    private final EhFrame frame;
    private final EhFrameHdr header;
    /** Without a searchable header: FDE starts, ends and offsets sorted by start. */
    private volatile long[][] index;
    private volatile String scanError;
    private final Map<Long, List<CfiRow>> cache = new ConcurrentHashMap<>();

    private ModuleCfi(String name, EhFrame frame, EhFrameHdr header) {
        this.name = name;
        this.frame = frame;
        this.header = header;
    }

    /**
     * The CFI of {@code elf}: {@link #NONE} when it has no {@code .eh_frame}. The sections' bytes are
     * copied, so the file's array need not be kept.
     */
    public static ModuleCfi of(String name, ElfFile elf) {
        Optional<ElfSection> eh = elf.section(".eh_frame").filter(ElfSection::hasFileData);
        if (eh.isEmpty()) return NONE;
        Optional<ElfSection> hdr = elf.section(".eh_frame_hdr").filter(ElfSection::hasFileData);
        return of(name, elf.data(eh.get()), eh.get().addr(), hdr.map(elf::data).orElse(null), hdr.map(ElfSection::addr).orElse(0L), true);
    }

    /** The same from the sections read alone ({@link ElfUnwindSections}). */
    public static ModuleCfi of(String name, ElfUnwindSections s) {
        if (s.ehFrame() == null) return NONE;
        return of(name, s.ehFrame(), s.ehFrameAddr(), s.ehFrameHdr(), s.ehFrameHdrAddr(), true);
    }

    private static ModuleCfi of(String name, byte[] ehFrame, long ehAddr, byte[] hdr, long hdrAddr, boolean checkHeader) {
        EhFrame frame = new EhFrame(ByteView.of(ehFrame, name + " .eh_frame"), ehAddr);
        EhFrameHdr header = null;
        if (hdr != null) {
            EhFrameHdr h = new EhFrameHdr(ByteView.of(hdr, name + " .eh_frame_hdr"), hdrAddr);
            if (checkHeader && h.ehFramePtr() != ehAddr) {
                throw CfiFormatException.of("%s: .eh_frame_hdr points at .eh_frame 0x%x, but the section is at 0x%x", name, h.ehFramePtr(), ehAddr);
            }
            if (h.searchable()) header = h;
        }
        return new ModuleCfi(name, frame, header);
    }

    /** Over raw sections (tests, fuzzing): {@code hdr} may be null. */
    public static ModuleCfi of(String name, byte[] ehFrame, long ehFrameVaddr, byte[] hdr, long hdrVaddr) {
        EhFrame frame = new EhFrame(ByteView.of(ehFrame, name + " .eh_frame"), ehFrameVaddr);
        EhFrameHdr header = hdr == null ? null : new EhFrameHdr(ByteView.of(hdr, name + " .eh_frame_hdr"), hdrVaddr);
        return new ModuleCfi(name, frame, header != null && header.searchable() ? header : null);
    }

    public boolean present() { return frame != null; }

    /** Why the scan of {@code .eh_frame} (used without a search table) stopped early, or null. */
    public String scanError() { return scanError; }

    public boolean hasSearchTable() { return header != null; }

    public EhFrame ehFrame() { return frame; }

    /** The FDE covering {@code pc}, if any. */
    public Optional<Fde> fdeFor(long pc) {
        long offset = fdeOffsetFor(pc);
        if (offset < 0) return Optional.empty();
        Fde fde = frame.fdeAt(offset);
        return fde.covers(pc) ? Optional.of(fde) : Optional.empty();
    }

    /** The offset in .eh_frame of the FDE with the greatest start at or below {@code pc}, or -1. */
    private long fdeOffsetFor(long pc) {
        if (frame == null) return -1;
        if (header != null) {
            int i = header.search(pc);
            if (i < 0) return -1;
            long offset = header.fdeAddress(i) - frame.vaddr();
            if (offset < 0 || offset >= frame.size()) {
                throw CfiFormatException.of("%s: .eh_frame_hdr entry %d points at 0x%x, outside .eh_frame", name, i, header.fdeAddress(i));
            }
            return offset;
        }
        long[][] ix = index();
        int i = Arrays.binarySearch(ix[0], pc);
        if (i < 0) i = -i - 2;
        // Sorted by start; FDEs do not overlap in sane files, so the closest start is the one.
        return i < 0 ? -1 : ix[2][i];
    }

    /**
     * The row for {@code pc} (an ELF virtual address of this module), if an FDE covers it. An FDE's
     * rows cover exactly {@code [pcBegin, pcEnd)}, so a cached FDE is not parsed again.
     */
    public Optional<CfiRow> rowFor(long pc) {
        long offset = fdeOffsetFor(pc);
        if (offset < 0) return Optional.empty();
        List<CfiRow> rows = cache.get(offset);
        if (rows == null) {
            Fde fde = frame.fdeAt(offset);
            rows = CfaInterpreter.rows(frame, fde);
            if (cache.size() >= MAX_CACHED_FDES) cache.clear();
            cache.put(offset, rows);
        }
        int lo = 0, hi = rows.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            CfiRow r = rows.get(mid);
            if (Long.compareUnsigned(pc, r.pc()) < 0) hi = mid - 1;
            else if (Long.compareUnsigned(pc, r.pcEnd()) >= 0) lo = mid + 1;
            else return Optional.of(r);
        }
        return Optional.empty();
    }

    private long[][] index() {
        long[][] ix = index;
        if (ix == null) {
            synchronized (this) {
                if (index == null) {
                    // A broken record ends the scan: the FDEs before it stay usable, and the scan is not retried.
                    List<Fde> all = new java.util.ArrayList<>();
                    try {
                        frame.forEachFde(all::add);
                    } catch (CfiFormatException e) {
                        scanError = e.getMessage();
                    }
                    all.sort((a, b) -> Long.compareUnsigned(a.pcBegin(), b.pcBegin()));
                    long[][] built = new long[3][all.size()];
                    for (int i = 0; i < all.size(); i++) {
                        built[0][i] = all.get(i).pcBegin();
                        built[1][i] = all.get(i).pcEnd();
                        built[2][i] = all.get(i).offset();
                    }
                    index = built;
                }
                ix = index;
            }
        }
        return ix;
    }

    @Override public String toString() { return name == null ? "no CFI" : name + " CFI"; }
}
