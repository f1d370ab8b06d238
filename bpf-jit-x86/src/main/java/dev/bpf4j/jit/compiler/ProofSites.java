package dev.bpf4j.jit.compiler;

/**
 * Where a compiled program left out work its analyses proved unnecessary. {@code uncheckedPcs}:
 * loads and stores emitted without a run-time memory check because
 * {@link dev.bpf4j.analysis.StackProof} proved them inside the frame. When
 * {@link dev.bpf4j.analysis.RegionProof} proved more, main also has a guarded copy of its body
 * at {@code guardedOffset} (-1: none), entered when the run's packet passes the entry guard;
 * {@code guardedPcs} are the accesses that copy emits without a check. {@code combinedPcs} and
 * {@code guardedCombinedPcs} are where the body and the copy load 2, 4 or 8 bytes at once in place
 * of a tree of byte loads ({@link dev.bpf4j.jit.analysis.LoadCombining}).
 */
public record ProofSites(int[] uncheckedPcs, int[] guardedPcs, int guardedOffset, int[] combinedPcs, int[] guardedCombinedPcs) {
    public ProofSites {
        uncheckedPcs = uncheckedPcs.clone();
        guardedPcs = guardedPcs.clone();
        combinedPcs = combinedPcs.clone();
        guardedCombinedPcs = guardedCombinedPcs.clone();
    }

    @Override public int[] uncheckedPcs() { return uncheckedPcs.clone(); }

    @Override public int[] guardedPcs() { return guardedPcs.clone(); }

    @Override public int[] combinedPcs() { return combinedPcs.clone(); }

    @Override public int[] guardedCombinedPcs() { return guardedCombinedPcs.clone(); }

    /**
     * True when main's body emits the access at {@code pc} ({@code size} bytes at {@code base + off})
     * with a run-time check: the predicate the compiler used.
     */
    public boolean checks(int pc, int baseReg, int off, int size) {
        for (int p : uncheckedPcs) if (p == pc) return false;
        return !MemoryEmitter.provenStackAccess(baseReg, off, size);
    }

    /** True when main has a guarded copy. */
    public boolean hasGuardedCopy() { return guardedOffset >= 0; }
}
