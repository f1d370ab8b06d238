package dev.bpf4j.unwind;

import java.util.List;

/**
 * Unwinds a stack from a starting register set: with the unwind rows where the code map knows the
 * code, with plain frame pointers elsewhere. Every read goes through a {@link MemoryView}, so a
 * garbage frame pointer ends the walk instead of crashing it. Any return address is accepted;
 * {@link Unwinder} is the full form (return addresses checked against the process's code, and a
 * {@link StackTrace} that says whether frame pointers were trusted).
 */
public final class FrameWalker {
    /** Longest trace returned (the kernel's PERF_MAX_STACK_DEPTH). */
    public static final int MAX_DEPTH = Unwinder.MAX_DEPTH;

    private final Unwinder unwinder;

    public FrameWalker(CodeMap codeMap) { this.unwinder = new Unwinder(codeMap, ra -> true); }

    /** Instruction pointers innermost first, starting with {@code ip} itself. */
    public List<Long> walk(long ip, long sp, long bp, MemoryView memory) {
        return unwinder.unwind(ip, sp, bp, memory).ips();
    }
}
