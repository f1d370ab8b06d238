package dev.bpf4j.unwind;

import java.util.List;

/**
 * Instruction pointers innermost first: the first is where the thread was, the others return
 * addresses. {@code reliable} is false when some step had no unwind row and trusted the frame
 * pointer (right for code built with frame pointers, wrong in a prologue or in code without them).
 */
public record StackTrace(List<Long> ips, boolean reliable) {
    public StackTrace {
        ips = List.copyOf(ips);
    }

    public static final StackTrace EMPTY = new StackTrace(List.of(), true);

    public int depth() { return ips.size(); }
}
