package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ByteView;

/**
 * A read position in one CFI section ({@code .eh_frame} or {@code .eh_frame_hdr}) whose first byte
 * is loaded at {@code sectionVaddr}: fixed-size fields, LEB128 and {@code DW_EH_PE} pointers.
 * Every read stays below {@code limit} (the end of the record being read) and throws a
 * {@link CfiFormatException} when it would not.
 */
final class CfiCursor {
    private final ByteView data;
    private final long sectionVaddr;
    private long pos;
    private long limit;

    CfiCursor(ByteView data, long sectionVaddr, long pos, long limit) {
        this.data = data;
        this.sectionVaddr = sectionVaddr;
        this.pos = pos;
        this.limit = Math.min(limit, data.length());
    }

    long pos() { return pos; }

    long limit() { return limit; }

    boolean atEnd() { return pos >= limit; }

    void seek(long p) {
        if (p < 0 || p > limit) throw CfiFormatException.of("%s: offset 0x%x outside the record ending at 0x%x", data.what(), p, limit);
        pos = p;
    }

    private void need(long n) {
        if (pos < 0 || n > limit - pos) {
            throw CfiFormatException.of("%s: %d bytes at 0x%x run past the record's end at 0x%x", data.what(), n, pos, limit);
        }
    }

    int u8() { need(1); return data.u8(pos++); }

    int u16() { need(2); int v = data.u16(pos); pos += 2; return v; }

    long u32() { need(4); long v = data.u32(pos); pos += 4; return v; }

    int s32() { need(4); int v = data.s32(pos); pos += 4; return v; }

    long u64() { need(8); long v = data.u64(pos); pos += 8; return v; }

    /** Unsigned LEB128; more than 64 bits of value is an error (no silent wrap-around). */
    long uleb() {
        long result = 0;
        int shift = 0;
        while (true) {
            int b = u8();
            if (shift >= 64 || (shift == 63 && (b & 0x7e) != 0)) throw CfiFormatException.of("%s: ULEB128 at 0x%x overflows 64 bits", data.what(), pos);
            result |= (long) (b & 0x7f) << shift;
            shift += 7;
            if ((b & 0x80) == 0) return result;
        }
    }

    long sleb() {
        long result = 0;
        int shift = 0;
        int b;
        do {
            b = u8();
            if (shift >= 64) throw CfiFormatException.of("%s: SLEB128 at 0x%x overflows 64 bits", data.what(), pos);
            result |= (long) (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        if (shift < 64 && (b & 0x40) != 0) result |= -1L << shift;
        return result;
    }

    /** A ULEB128 that is a count or a register number: it must fit an int. */
    int ulebInt(String what) {
        long v = uleb();
        if (v < 0 || v > Integer.MAX_VALUE) throw CfiFormatException.of("%s: %s %s at 0x%x is too large", data.what(), what, Long.toUnsignedString(v), pos);
        return (int) v;
    }

    /**
     * A {@code DW_EH_PE} pointer. {@code dataBase} is what {@code DW_EH_PE_datarel} is relative to
     * (the {@code .eh_frame_hdr} start). {@code textrel} and {@code funcrel} need bases x86-64 never
     * uses for what is read here: refused.
     */
    long pointer(int encoding, long dataBase, String what) {
        if (encoding == PointerEncoding.OMIT) throw CfiFormatException.of("%s: %s is omitted (encoding 0xff)", data.what(), what);
        long fieldVaddr = sectionVaddr + pos;
        long v = switch (encoding & 0x0f) {
            case PointerEncoding.ABSPTR, PointerEncoding.UDATA8, PointerEncoding.SDATA8 -> u64();
            case PointerEncoding.UDATA4 -> u32();
            case PointerEncoding.SDATA4 -> s32();
            case PointerEncoding.UDATA2 -> u16();
            case PointerEncoding.SDATA2 -> (short) u16();
            case PointerEncoding.ULEB128 -> uleb();
            case PointerEncoding.SLEB128 -> sleb();
            default -> throw CfiFormatException.of("%s: %s has pointer encoding 0x%02x with unknown format", data.what(), what, encoding);
        };
        return switch (encoding & 0x70) {
            case 0 -> v;
            case PointerEncoding.PCREL -> fieldVaddr + v;
            case PointerEncoding.DATAREL -> dataBase + v;
            default -> throw CfiFormatException.of("%s: %s has pointer encoding 0x%02x with an unsupported base", data.what(), what, encoding);
        };
    }

    /** Skips a pointer without applying its base (personality and LSDA pointers are not used). */
    void skipPointer(int encoding, String what) {
        if (encoding == PointerEncoding.OMIT) return;
        int size = PointerEncoding.fixedSize(encoding);
        if (size < 0) uleb(); else { need(size); pos += size; }
    }
}
