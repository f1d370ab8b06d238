package dev.bpf4j.jit.compiler;

/** One BPF function: slots {@code [startPc, endPc)}; index 0 is the main program. */
record FunctionSpan(int index, int startPc, int endPc) {
    boolean isMain() { return index == 0; }
}
