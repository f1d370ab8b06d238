package dev.bpf4j.jit.compiler;

/**
 * The main function's second, guarded translation ({@link dev.bpf4j.jit.analysis.RegionProof}):
 * the accesses it emits without a check ({@code unchecked[pc]}), and whether the entry guard must
 * find the data buffer in a writable region (some proven access is a store).
 */
record GuardedCopy(boolean[] unchecked, boolean writable) {}
