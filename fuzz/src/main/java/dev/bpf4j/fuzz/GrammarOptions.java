package dev.bpf4j.fuzz;

/**
 * What the grammar generator may produce.
 *
 * @param frameEscapes also generate the program classes of issue 21 that today's validator accepts
 *        although Linux rejects them and the engines disagree: reads of r1-r5 after a call, reads of
 *        registers a subprogram was not passed, r10-derived pointers that leave the own frame (into a
 *        caller's frame or beyond), pointer arguments used beyond the caller's frame, and reads of
 *        never-written stack. Off: every function writes its whole frame first and reads only
 *        registers that hold a value on every path.
 * @param maxBody  instructions (roughly) in the main program's body
 */
public record GrammarOptions(boolean frameEscapes, int maxBody) {
    /** The classes the engines must agree on today, without the frame/clobber classes of issue 21. */
    public static GrammarOptions defaults() { return new GrammarOptions(false, 30); }

    public GrammarOptions withFrameEscapes(boolean on) { return new GrammarOptions(on, maxBody); }
}
