package dev.bpf4j.elf;

import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked little-endian reads over a window of a byte array. Every read that would leave
 * the window throws a {@link ElfFormatException} naming what was being read, so parsers built on it
 * never see an {@code IndexOutOfBoundsException}.
 */
public final class ByteView {
    private final byte[] data;
    private final int base;
    private final int length;
    private final String what;

    private ByteView(byte[] data, int base, int length, String what) {
        this.data = data;
        this.base = base;
        this.length = length;
        this.what = what;
    }

    /** A view of the whole array. */
    public static ByteView of(byte[] data, String what) { return new ByteView(data, 0, data.length, what); }

    /** A sub-view of {@code size} bytes at {@code offset}; both are checked. */
    public ByteView slice(long offset, long size, String sliceWhat) {
        check(offset, size, sliceWhat);
        return new ByteView(data, base + (int) offset, (int) size, sliceWhat);
    }

    public int length() { return length; }

    public String what() { return what; }

    /** True when {@code size} bytes at {@code offset} lie inside the view (no overflow possible). */
    public boolean contains(long offset, long size) {
        return offset >= 0 && size >= 0 && offset <= length && size <= length - offset;
    }

    private void check(long offset, long size, String field) {
        if (!contains(offset, size)) {
            throw new ElfFormatException(String.format("%s: %s at offset 0x%x (size %d) lies outside %s of %d bytes",
                    what, field, offset, size, what, length));
        }
    }

    public int u8(long offset) {
        check(offset, 1, "byte");
        return data[base + (int) offset] & 0xff;
    }

    public int u16(long offset) {
        check(offset, 2, "u16");
        int p = base + (int) offset;
        return (data[p] & 0xff) | (data[p + 1] & 0xff) << 8;
    }

    /** A 32-bit field as a Java int (use {@link #u32(long)} when the value is unsigned). */
    public int s32(long offset) {
        check(offset, 4, "u32");
        int p = base + (int) offset;
        return (data[p] & 0xff) | (data[p + 1] & 0xff) << 8 | (data[p + 2] & 0xff) << 16 | (data[p + 3] & 0xff) << 24;
    }

    public long u32(long offset) { return s32(offset) & 0xffffffffL; }

    /** A 64-bit field; callers treat negative values as "larger than anything" when validating sizes. */
    public long u64(long offset) {
        check(offset, 8, "u64");
        return u32(offset) | (u32(offset + 4) << 32);
    }

    public byte[] bytes(long offset, long size) {
        check(offset, size, "bytes");
        byte[] out = new byte[(int) size];
        System.arraycopy(data, base + (int) offset, out, 0, (int) size);
        return out;
    }

    /**
     * The NUL-terminated string at {@code offset}; a string that runs to the end of the view
     * without a terminator is an error, as in libbpf.
     */
    public String cString(long offset, String field) {
        if (offset < 0 || offset >= length) {
            throw new ElfFormatException(String.format("%s: %s offset %d is outside the string table of %d bytes",
                    what, field, offset, length));
        }
        int start = base + (int) offset;
        int end = start;
        int limit = base + length;
        while (end < limit && data[end] != 0) end++;
        if (end == limit) {
            throw new ElfFormatException(String.format("%s: %s at offset %d is not NUL-terminated", what, field, offset));
        }
        return new String(data, start, end - start, StandardCharsets.UTF_8);
    }
}
