package dev.bpf4j.unwind.cfi;

/**
 * The {@code DW_EH_PE_*} pointer encodings of {@code .eh_frame} and {@code .eh_frame_hdr} (LSB
 * "Exception Frames"): the low nibble is the format, bits 4-6 what the value is relative to, bit 7
 * an indirection that only personality pointers use (skipped here, never followed).
 */
public final class PointerEncoding {
    private PointerEncoding() {}

    public static final int OMIT = 0xff;
    public static final int ABSPTR = 0x00, ULEB128 = 0x01, UDATA2 = 0x02, UDATA4 = 0x03, UDATA8 = 0x04,
            SLEB128 = 0x09, SDATA2 = 0x0a, SDATA4 = 0x0b, SDATA8 = 0x0c;
    public static final int PCREL = 0x10, TEXTREL = 0x20, DATAREL = 0x30, FUNCREL = 0x40, ALIGNED = 0x50, INDIRECT = 0x80;

    /** Bytes a fixed-size format takes, or -1 for the LEB128 forms. */
    static int fixedSize(int encoding) {
        return switch (encoding & 0x0f) {
            case ABSPTR, UDATA8, SDATA8 -> 8;
            case UDATA4, SDATA4 -> 4;
            case UDATA2, SDATA2 -> 2;
            case ULEB128, SLEB128 -> -1;
            default -> throw CfiFormatException.of("pointer encoding 0x%02x has unknown format 0x%x", encoding, encoding & 0x0f);
        };
    }

    /** Checks an encoding a reader meets in a CIE or the header: known format and base. */
    static void check(int encoding, String what) {
        if (encoding == OMIT) return;
        fixedSize(encoding);
        int app = encoding & 0x70;
        if (app != 0 && app != PCREL && app != DATAREL && app != TEXTREL && app != FUNCREL) {
            throw CfiFormatException.of("%s pointer encoding 0x%02x has unsupported base 0x%x", what, encoding, app);
        }
    }
}
