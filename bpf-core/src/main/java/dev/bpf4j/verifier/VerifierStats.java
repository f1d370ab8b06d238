package dev.bpf4j.verifier;

/**
 * What the kernel's log ends with: {@code processed N insns (limit 1000000) max_states_per_insn M
 * total_states T peak_states P}. bpf4j prints its total as the peak too: a state dropped from comparison
 * (StatePruning.covering) frees its copy, but the count of those still held is not kept.
 *
 * <p>{@code budgetBound}: when every loop was explored round by round to its end (no state covered
 * by one of its own path's, nothing widened) and no callback or tail call runs code the exploration
 * did not count, no run executes more instructions than were processed, so no run has more budget
 * events (taken back-edges and calls) than this; -1 where the verifier cannot say. A run whose
 * budget is at least the bound never runs out, so an engine may stop counting it.
 */
public record VerifierStats(int processedInsns, int maxStatesPerInsn, int totalStates, long budgetBound) {
    public VerifierStats(int processedInsns, int maxStatesPerInsn, int totalStates) {
        this(processedInsns, maxStatesPerInsn, totalStates, -1);
    }

    /** True when {@link #budgetBound} holds. */
    public boolean bounded() { return budgetBound >= 0; }

    @Override
    public String toString() {
        return "processed " + processedInsns + " insns (limit " + Verifier.COMPLEXITY_LIMIT + ") max_states_per_insn "
                + maxStatesPerInsn + " total_states " + totalStates + " peak_states " + totalStates;
    }
}
