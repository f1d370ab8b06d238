package dev.bpf4j.verifier;

/**
 * What the kernel's log ends with: {@code processed N insns (limit 1000000) max_states_per_insn M
 * total_states T peak_states P}. bpf4j keeps every state it stores until the end, so its peak is its total.
 */
public record VerifierStats(int processedInsns, int maxStatesPerInsn, int totalStates) {
    @Override
    public String toString() {
        return "processed " + processedInsns + " insns (limit " + Verifier.COMPLEXITY_LIMIT + ") max_states_per_insn "
                + maxStatesPerInsn + " total_states " + totalStates + " peak_states " + totalStates;
    }
}
