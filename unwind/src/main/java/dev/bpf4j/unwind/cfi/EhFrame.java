package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfFormatException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The {@code .eh_frame} section of one module: CIE and FDE records read on demand by offset (the
 * header's table points at FDEs), or all in one pass ({@link #forEachFde}) where there is no
 * header. Supports the augmentations x86-64 toolchains emit — {@code z}, {@code R} (FDE pointer
 * encoding), {@code P} (personality, skipped), {@code L} (LSDA, skipped), {@code S} (signal frame)
 * — and CIE versions 1, 3 and 4.
 */
public final class EhFrame {
    static final int MAX_CIES = 4096;
    private final ByteView data;
    private final long vaddr;
    private final Map<Long, Cie> cies = new ConcurrentHashMap<>();

    /** @param vaddr the ELF virtual address of the section's first byte */
    public EhFrame(ByteView data, long vaddr) {
        this.data = data;
        this.vaddr = vaddr;
    }

    public long vaddr() { return vaddr; }

    public int size() { return data.length(); }

    ByteView data() { return data; }

    /** One record's extent: where its body starts and ends, and its id/CIE-pointer field. */
    private record Header(long offset, long bodyStart, long end, long id, long idField) {}

    /** The record at {@code offset}, or null for the zero terminator. */
    private Header header(long offset) {
        CfiCursor c = new CfiCursor(data, vaddr, offset, data.length());
        long length = c.u32();
        if (length == 0) return null;
        boolean wide = length == 0xffffffffL;
        if (wide) length = c.u64();
        long bodyStart = c.pos();
        if (length < 4 || Long.compareUnsigned(length, data.length() - bodyStart) > 0) {
            throw CfiFormatException.of(".eh_frame+0x%x: record length %s runs past the section's %d bytes",
                    offset, Long.toUnsignedString(length), data.length());
        }
        long end = bodyStart + length;
        long idField = c.pos();
        long id = wide ? c.u64() : c.u32();
        return new Header(offset, bodyStart, end, id, idField);
    }

    /** The FDE at {@code offset} of {@code .eh_frame}. */
    public Fde fdeAt(long offset) {
        try {
            Header h = header(offset);
            if (h == null) throw CfiFormatException.of("is the zero terminator, not an FDE");
            if (h.id == 0) throw CfiFormatException.of("is a CIE, not an FDE");
            return readFde(h);
        } catch (CfiFormatException e) {
            throw CfiFormatException.of(".eh_frame FDE at 0x%x: %s", offset, e.getMessage());
        } catch (ElfFormatException e) {
            throw new CfiFormatException(".eh_frame FDE at 0x" + Long.toHexString(offset) + ": " + e.getMessage(), e);
        }
    }

    private Fde readFde(Header h) {
        // The CIE pointer is the distance back from the field itself.
        long cieOffset = h.idField - h.id;
        if (h.id < 0 || cieOffset < 0 || cieOffset >= h.offset) {
            throw CfiFormatException.of("CIE pointer %s points outside the section before it", Long.toUnsignedString(h.id));
        }
        Cie cie = cieAt(cieOffset);
        CfiCursor c = new CfiCursor(data, vaddr, h.idField + 4, h.end);
        long pcBegin = c.pointer(cie.fdeEncoding(), 0, "pc_begin");
        long pcRange = c.pointer(cie.fdeEncoding() & 0x0f, 0, "pc_range");
        if (cie.hasAugmentationData()) {
            long n = c.uleb();
            if (Long.compareUnsigned(n, c.limit() - c.pos()) > 0) throw CfiFormatException.of("augmentation data of %s bytes runs past the FDE", Long.toUnsignedString(n));
            c.seek(c.pos() + n);   // the LSDA pointer: not needed to unwind
        }
        return new Fde(h.offset, cie, pcBegin, pcRange, c.pos(), h.end);
    }

    /** The CIE at {@code offset}, read once. */
    public Cie cieAt(long offset) {
        Cie known = cies.get(offset);
        if (known != null) return known;
        Cie cie;
        try {
            cie = readCie(offset);
        } catch (CfiFormatException e) {
            throw CfiFormatException.of("CIE at 0x%x: %s", offset, e.getMessage());
        } catch (ElfFormatException e) {
            throw new CfiFormatException("CIE at 0x" + Long.toHexString(offset) + ": " + e.getMessage(), e);
        }
        if (cies.size() < MAX_CIES) cies.put(offset, cie);
        return cie;
    }

    private Cie readCie(long offset) {
        Header h = header(offset);
        if (h == null || h.id != 0) throw CfiFormatException.of("is not a CIE");
        CfiCursor c = new CfiCursor(data, vaddr, h.idField + 4, h.end);
        int version = c.u8();
        if (version != 1 && version != 3 && version != 4) throw CfiFormatException.of("unsupported version %d", version);
        StringBuilder aug = new StringBuilder();
        for (int b = c.u8(); b != 0; b = c.u8()) {
            if (aug.length() > 16) throw CfiFormatException.of("augmentation string longer than 16 bytes");
            aug.append((char) b);
        }
        String augmentation = aug.toString();
        if (augmentation.startsWith("eh")) throw CfiFormatException.of("obsolete augmentation \"%s\"", augmentation);
        if (!augmentation.isEmpty() && augmentation.charAt(0) != 'z') {
            throw CfiFormatException.of("augmentation \"%s\" does not start with 'z': its data cannot be skipped", augmentation);
        }
        if (version == 4) {
            int addressSize = c.u8(), segmentSize = c.u8();
            if (addressSize != 8 || segmentSize != 0) throw CfiFormatException.of("address size %d, segment size %d", addressSize, segmentSize);
        }
        long codeAlign = c.uleb();
        long dataAlign = c.sleb();
        long ra = version == 1 ? c.u8() : c.uleb();
        if (ra < 0 || ra > CfaInterpreter.MAX_REGISTER) throw CfiFormatException.of("return address register %s", Long.toUnsignedString(ra));
        int fdeEncoding = PointerEncoding.ABSPTR, lsdaEncoding = PointerEncoding.OMIT;
        boolean signal = false, hasAugData = false;
        long augEnd = c.pos();
        if (!augmentation.isEmpty()) {
            hasAugData = true;
            long n = c.uleb();
            if (Long.compareUnsigned(n, c.limit() - c.pos()) > 0) throw CfiFormatException.of("augmentation data of %s bytes runs past the CIE", Long.toUnsignedString(n));
            augEnd = c.pos() + n;
            CfiCursor a = new CfiCursor(data, vaddr, c.pos(), augEnd);
            for (int i = 1; i < augmentation.length(); i++) {
                switch (augmentation.charAt(i)) {
                    case 'R' -> { fdeEncoding = a.u8(); PointerEncoding.check(fdeEncoding, "FDE"); }
                    case 'L' -> { lsdaEncoding = a.u8(); PointerEncoding.check(lsdaEncoding, "LSDA"); }
                    case 'P' -> {
                        int pe = a.u8();
                        PointerEncoding.check(pe & 0x7f, "personality");
                        a.skipPointer(pe & 0x7f, "personality");
                    }
                    case 'S' -> signal = true;
                    case 'B' -> { } // AArch64 BTI marker; no data
                    default -> throw CfiFormatException.of("unknown augmentation '%c' in \"%s\"", augmentation.charAt(i), augmentation);
                }
            }
            c.seek(augEnd);
        }
        if (fdeEncoding == PointerEncoding.OMIT) throw CfiFormatException.of("FDE pointer encoding is 'omit'");
        return new Cie(offset, version, augmentation, codeAlign, dataAlign, (int) ra, fdeEncoding, lsdaEncoding,
                hasAugData, signal, c.pos(), h.end);
    }

    /**
     * Every FDE in section order, the way a reader without {@code .eh_frame_hdr} must find them.
     * Stops at the zero terminator or the section's end.
     */
    public void forEachFde(Consumer<Fde> action) {
        long offset = 0;
        while (offset + 4 <= data.length()) {
            Header h;
            try {
                h = header(offset);
            } catch (CfiFormatException e) {
                throw CfiFormatException.of(".eh_frame record at 0x%x: %s", offset, e.getMessage());
            } catch (ElfFormatException e) {
                throw new CfiFormatException(".eh_frame record at 0x" + Long.toHexString(offset) + ": " + e.getMessage(), e);
            }
            if (h == null) return;
            if (h.id != 0) action.accept(fdeAt(offset));
            offset = h.end;
        }
    }

    /** All FDEs ({@link #forEachFde}). */
    public List<Fde> fdes() {
        List<Fde> out = new ArrayList<>();
        forEachFde(out::add);
        return out;
    }
}
