package dev.bpf4j.fuzz;

/**
 * What the grammar generator may produce.
 *
 * @param frameEscapes also generate the program classes of issue 21 that Linux rejects and the
 *        engines may disagree on: reads of r1-r5 after a call, reads of registers a subprogram was not
 *        passed, r10-derived pointers that leave the own frame (into a caller's frame or beyond),
 *        pointer arguments used beyond the caller's frame, and reads of never-written stack. Off: only
 *        registers that hold a value on every path are read.
 * @param maxBody  instructions (roughly) in the main program's body
 * @param kernelComparable programs whose result Linux defines the same way: every frame written before
 *        it is read (Linux does not zero stack), frames that fit Linux's 512 bytes for the whole call
 *        chain, and no helper 5 (the suites' {@code unwind} is {@code bpf_ktime_get_ns} in Linux)
 * @param objectPercent share of programs that are tc objects (maps, packet, context, callbacks, tail
 *        calls, LD_ABS/LD_IND) rather than programs over a memory block; those are always kernel-comparable
 */
public record GrammarOptions(boolean frameEscapes, int maxBody, boolean kernelComparable, int objectPercent) {
    public GrammarOptions {
        if (objectPercent < 0 || objectPercent > 100) throw new IllegalArgumentException("objectPercent must be 0-100");
    }

    /** Memory-block and object programs half and half, without the frame/clobber classes of issue 21. */
    public static GrammarOptions defaults() { return new GrammarOptions(false, 30, false, 50); }

    public GrammarOptions withFrameEscapes(boolean on) { return new GrammarOptions(on, maxBody, kernelComparable, objectPercent); }

    public GrammarOptions withKernelComparable(boolean on) { return new GrammarOptions(frameEscapes, maxBody, on, objectPercent); }

    public GrammarOptions withObjectPercent(int p) { return new GrammarOptions(frameEscapes, maxBody, kernelComparable, p); }
}
