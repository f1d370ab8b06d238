package dev.bpf4j.elf;

import java.util.HashMap;
import java.util.Map;

import static dev.bpf4j.elf.ElfPhase.error;

/**
 * A string table (ELF {@code .strtab}, {@code .shstrtab}, the BTF string section) read through a
 * cache. Real tables decode to about their own size, but a hostile one can point thousands of
 * names into one long unterminated run; decoding is therefore capped at a budget proportional to
 * the table, so no input makes the parser scan or allocate without bound.
 */
public final class StringTable {
    private final ByteView bytes;
    private final Map<Long, String> cache = new HashMap<>();
    private final long budget;
    private long decoded;

    public StringTable(ByteView bytes) {
        this.bytes = bytes;
        this.budget = 4L * bytes.length() + 65536;
    }

    public int length() { return bytes.length(); }

    /** The NUL-terminated string at {@code offset}. Synchronized: a parsed BTF is shared by immutable specs. */
    public synchronized String get(long offset, String field) {
        String s = cache.get(offset);
        if (s != null) return s;
        if (offset < 0 || offset >= bytes.length()) {
            throw error("%s: %s offset %d is outside the string table of %d bytes", bytes.what(), field, offset, bytes.length());
        }
        long end = offset;
        while (end < bytes.length() && bytes.u8(end) != 0) {
            end++;
            if (decoded + (end - offset) > budget) {
                throw error("%s: names decode to more than %d bytes, 4 times the table: refusing a malformed string table", bytes.what(), budget);
            }
        }
        decoded += end - offset + 1;
        s = bytes.cString(offset, field);
        cache.put(offset, s);
        return s;
    }
}
