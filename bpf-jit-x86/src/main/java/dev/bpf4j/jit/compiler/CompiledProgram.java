package dev.bpf4j.jit.compiler;

/**
 * Machine code for a program, position-independent within itself (absolute only for helper
 * targets), its layout, how many translation passes it took (the last one being the check), and
 * the pcs of the loads and stores emitted without a run-time memory check because
 * {@link dev.bpf4j.jit.analysis.StackProof} proved them inside the frame.
 */
public record CompiledProgram(byte[] code, JitLayout layout, int passes, int[] uncheckedPcs) {
    public CompiledProgram {
        code = code.clone();
        uncheckedPcs = uncheckedPcs.clone();
    }

    public CompiledProgram(byte[] code, JitLayout layout, int passes) { this(code, layout, passes, new int[0]); }

    @Override public byte[] code() { return code.clone(); }

    @Override public int[] uncheckedPcs() { return uncheckedPcs.clone(); }

    public int size() { return code.length; }
}
