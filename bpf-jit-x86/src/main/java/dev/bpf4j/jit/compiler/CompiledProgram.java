package dev.bpf4j.jit.compiler;

import dev.bpf4j.verifier.InsnAux;

/**
 * Machine code for a program, position-independent within itself (absolute only for helper
 * targets), its layout, how many translation passes it took (the last one being the check), and
 * where its analyses left out checks ({@link ProofSites}). {@code mainZeroed}: the bytes below rbp
 * main's prologue zeroes ({@link MainFrameZeroing}); a first tail call zeroes the rest.
 * {@code aux}: the verifier's facts the code was compiled with (null: an unverified program), which
 * the helpers' memory checks of a run follow too.
 */
public record CompiledProgram(byte[] code, JitLayout layout, int passes, ProofSites proofs, int mainZeroed, InsnAux aux) {
    public CompiledProgram { code = code.clone(); }

    @Override public byte[] code() { return code.clone(); }

    public int size() { return code.length; }
}
