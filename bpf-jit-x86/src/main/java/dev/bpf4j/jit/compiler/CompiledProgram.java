package dev.bpf4j.jit.compiler;

/**
 * Machine code for a program, position-independent within itself (absolute only for helper
 * targets), its layout, and how many translation passes it took (the last one being the check).
 */
public record CompiledProgram(byte[] code, JitLayout layout, int passes) {
    public CompiledProgram {
        code = code.clone();
    }

    @Override public byte[] code() { return code.clone(); }

    public int size() { return code.length; }
}
