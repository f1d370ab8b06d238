package dev.bpf4j.object;

/**
 * One STT_FUNC symbol's code: instructions {@code [start, start + length)} of its section. Functions
 * outside {@code .text} are programs; those in {@code .text} are subprograms.
 */
record Function(String name, CodeSection code, int start, int length) {
    boolean contains(int insn) { return insn >= start && insn < start + length; }

    String describe() { return "function '" + name + "' (section '" + code.name() + "')"; }
}
