package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.CfiRow;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongPredicate;

/**
 * The answers of an {@link Unwinder}'s code and CFI lookups, remembered until {@link #forget()}: a
 * sample replayed on several engines is then unwound over the same code by each. Without it the
 * answer for a return address could change between two replays of one sample, because
 * {@link ProcessCode} re-reads the maps when it meets an address it does not know — at most once
 * per interval, so the first replay may stop where the second goes on.
 *
 * <p>Used from one thread at a time (the thread that runs the replays).
 */
public final class RememberedLookups {
    private final Map<Long, Boolean> code = new HashMap<>();
    private final Map<Long, Optional<CfiRow>> rows = new HashMap<>();

    /** Forgets every answer: call it before the first replay of the next sample. */
    public void forget() {
        code.clear();
        rows.clear();
    }

    LongPredicate isCode(LongPredicate isCode) {
        return ip -> code.computeIfAbsent(ip, isCode::test);
    }

    CfiLookup cfi(CfiLookup cfi) {
        return cfi == CfiLookup.NONE ? cfi : pc -> rows.computeIfAbsent(pc, cfi::rowAt);
    }
}
