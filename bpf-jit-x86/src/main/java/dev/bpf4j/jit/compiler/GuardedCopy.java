package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.analysis.LoadCombining;

/**
 * The main function's second, guarded translation ({@link dev.bpf4j.jit.analysis.RegionProof}):
 * the accesses it emits without a check ({@code unchecked[pc]}), whether the entry guard must
 * find the data buffer in a writable region (some proven access is a store), and the byte loads
 * it merges.
 */
record GuardedCopy(boolean[] unchecked, boolean writable, LoadCombining.Plan combining) {}
