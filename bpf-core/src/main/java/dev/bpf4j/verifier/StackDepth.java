package dev.bpf4j.verifier;

import java.util.HashMap;
import java.util.Map;

/**
 * How deep each subprogram's frame is used on the paths explored (the kernel's
 * {@code subprog_info[].stack_depth}, grown by {@code grow_stack_state}): the lowest byte any access,
 * a helper's memory argument included, touches below its frame's r10, rounded up to 8. A function
 * never explored uses no stack. {@link CallStackCheck} sums these along call chains.
 */
final class StackDepth {
    private final Map<Integer, Integer> bySubprogStart = new HashMap<>();

    /** An access at offset {@code lo} (negative) of {@code frame}. */
    void grow(FuncState frame, long lo) {
        int size = (int) ((-lo + 7) & ~7L);
        bySubprogStart.merge(frame.subprogStart, size, Math::max);
    }

    int of(int subprogStart) { return bySubprogStart.getOrDefault(subprogStart, 0); }
}
