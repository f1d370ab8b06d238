package dev.bpf4j.unwind;

import java.util.List;
import java.util.Objects;

/**
 * A block of generated machine code {@code [start, start + size)} with a symbol, the module that
 * produced it and the unwind rows that say how to find the caller from any instruction in it.
 */
public record CodeRegion(long start, long size, String symbol, String module, List<UnwindRow> rows) {
    public CodeRegion {
        Objects.requireNonNull(symbol, "symbol");
        Objects.requireNonNull(module, "module");
        if (size <= 0) throw new IllegalArgumentException("code region " + symbol + " has size " + size);
        rows = List.copyOf(rows);
        for (UnwindRow r : rows) {
            if (r.endOffset() > size) {
                throw new IllegalArgumentException("unwind row " + r + " runs past the end of " + symbol + " (" + size + " bytes)");
            }
        }
    }

    public long end() { return start + size; }

    public boolean contains(long ip) { return Long.compareUnsigned(ip - start, size) < 0; }

    /** The rule for {@code ip}, or null when no row covers it. */
    public CfaRule ruleAt(long ip) {
        if (!contains(ip)) return null;
        int off = (int) (ip - start);
        for (UnwindRow r : rows) if (r.contains(off)) return r.rule();
        return null;
    }
}
