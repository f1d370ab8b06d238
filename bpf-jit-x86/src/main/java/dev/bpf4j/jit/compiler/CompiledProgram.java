package dev.bpf4j.jit.compiler;

/**
 * Machine code for a program, position-independent within itself (absolute only for helper
 * targets), its layout, how many translation passes it took (the last one being the check), and
 * the pcs of the loads and stores emitted without a run-time memory check because
 * {@link dev.bpf4j.jit.analysis.StackProof} proved them inside the frame. When
 * {@link dev.bpf4j.jit.analysis.RegionProof} proved more, main also has a guarded copy of its body
 * at {@code guardedOffset} (-1: none), entered when the run's r1/r2 pass the entry guard;
 * {@code guardedPcs} are the accesses that copy emits without a check. {@code combinedPcs} and
 * {@code guardedCombinedPcs} are where the body and the copy load 2, 4 or 8 bytes at once in place
 * of a tree of byte loads ({@link dev.bpf4j.jit.analysis.LoadCombining}). {@code mainZeroed}: the
 * bytes below rbp main's prologue zeroes ({@link MainFrameZeroing}); a first tail call zeroes the rest.
 * {@code aux}: the verifier's facts the code was compiled with (null: an unverified program), which
 * the helpers' memory checks of a run follow too.
 */
public record CompiledProgram(byte[] code, JitLayout layout, int passes, int[] uncheckedPcs, int[] guardedPcs, int guardedOffset,
                              int[] combinedPcs, int[] guardedCombinedPcs, int mainZeroed, dev.bpf4j.verifier.InsnAux aux) {
    public CompiledProgram {
        code = code.clone();
        uncheckedPcs = uncheckedPcs.clone();
        guardedPcs = guardedPcs.clone();
        combinedPcs = combinedPcs.clone();
        guardedCombinedPcs = guardedCombinedPcs.clone();
    }

    @Override public int[] combinedPcs() { return combinedPcs.clone(); }

    @Override public int[] guardedCombinedPcs() { return guardedCombinedPcs.clone(); }

    @Override public int[] guardedPcs() { return guardedPcs.clone(); }

    @Override public byte[] code() { return code.clone(); }

    @Override public int[] uncheckedPcs() { return uncheckedPcs.clone(); }

    public int size() { return code.length; }
}
