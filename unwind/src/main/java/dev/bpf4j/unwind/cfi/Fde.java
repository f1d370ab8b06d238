package dev.bpf4j.unwind.cfi;

/**
 * A Frame Description Entry: the code {@code [pcBegin, pcBegin + pcRange)} (ELF virtual addresses)
 * and the offsets in {@code .eh_frame} of its CFA instructions.
 */
public record Fde(long offset, Cie cie, long pcBegin, long pcRange, long instructionsStart, long instructionsEnd) {
    public boolean covers(long pc) { return Long.compareUnsigned(pc - pcBegin, pcRange) < 0; }

    public long pcEnd() { return pcBegin + pcRange; }
}
