package dev.bpf4j.jit.compiler;

/** Machine code for a program, position-independent within itself (absolute only for helper targets). */
public record CompiledProgram(byte[] code, JitLayout layout, int passes) {
    public CompiledProgram {
        code = code.clone();
    }

    @Override public byte[] code() { return code.clone(); }

    public int size() { return code.length; }
}
