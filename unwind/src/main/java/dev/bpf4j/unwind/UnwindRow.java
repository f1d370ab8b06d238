package dev.bpf4j.unwind;

/** The rule that holds for the code bytes {@code [startOffset, endOffset)} of a {@link CodeRegion}. */
public record UnwindRow(int startOffset, int endOffset, CfaRule rule) {
    public UnwindRow {
        if (startOffset < 0 || endOffset <= startOffset) {
            throw new IllegalArgumentException("bad unwind row [" + startOffset + ", " + endOffset + ")");
        }
        if (rule == null) throw new NullPointerException("rule");
    }

    public boolean contains(int offset) { return offset >= startOffset && offset < endOffset; }
}
