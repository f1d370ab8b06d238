package dev.bpf4j.unwind;

/**
 * What {@link Unwinder} does at one lookup address whatever the walk before it did, so that
 * another walker (native code) can repeat it bit for bit. {@link Kind#FRAME_POINTER}: no unwind
 * rows and no CFI there (ra at [bp + 8], caller's bp at [bp], the chain must rise).
 * {@link Kind#CFI}: a {@code .eh_frame} row with CFA = (rsp or rbp) + {@code cfaOffset}, the return
 * address at CFA + {@code raOffset} and the caller's rbp by {@code bp}/{@code bpOffset}.
 * {@link Kind#OUTERMOST}: the thread's first frame, the walk ends after it.
 */
public record PlainStep(Kind kind, boolean cfaFromRbp, long cfaOffset, long raOffset, BpRule bp, long bpOffset) {
    public enum Kind { FRAME_POINTER, CFI, OUTERMOST }

    /** The caller's rbp: unchanged, undefined (0), read at CFA + offset, CFA + offset itself, or this frame's rsp. */
    public enum BpRule { SAME, UNDEFINED, AT_CFA_OFFSET, CFA_OFFSET, SP }

    public static final PlainStep FRAME_POINTER = new PlainStep(Kind.FRAME_POINTER, false, 0, 0, BpRule.SAME, 0);
    public static final PlainStep OUTERMOST = new PlainStep(Kind.OUTERMOST, false, 0, 0, BpRule.SAME, 0);
}
