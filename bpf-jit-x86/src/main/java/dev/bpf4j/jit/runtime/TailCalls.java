package dev.bpf4j.jit.runtime;

import dev.bpf4j.runtime.Limits;

import java.util.ArrayList;
import java.util.List;

/**
 * The tail-call bookkeeping of one run: the count against {@link Limits#MAX_TAIL_CALLS}, the
 * target waiting for its helper to return, and the targets whose code the run keeps mapped (a
 * program closed while a run executes its code must not be unmapped under it).
 */
final class TailCalls {
    private int made;
    private JitExecutable pending;
    private final List<JitExecutable> pinned = new ArrayList<>(2);

    /** Tail calls counted so far ({@code RunRules.mayTailCall} compares it with the limit). */
    int made() { return made; }

    /** Counts one tail call that {@code RunRules.mayTailCall} allowed. */
    void count() { made++; }

    /** Pins {@code next} for the rest of the run and makes it the pending target; false when it is closed. */
    boolean pin(JitExecutable next) {
        if (!pinned.contains(next)) {
            if (!next.pinForTailCall()) return false;
            pinned.add(next);
        }
        pending = next;
        return true;
    }

    JitExecutable takePending() {
        JitExecutable p = pending;
        pending = null;
        return p;
    }

    boolean pinned(Object program) {
        for (JitExecutable p : pinned) if (p == program) return true;
        return false;
    }

    void unpinAll() {
        for (int i = 0; i < pinned.size(); i++) pinned.get(i).unpinTailCall();
        pinned.clear();
        pending = null;
    }
}
