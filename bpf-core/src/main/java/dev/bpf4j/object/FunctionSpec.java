package dev.bpf4j.object;

/**
 * One function of a linked program: the entry function at pc 0 or an appended subprogram copy.
 * {@code [pc, pc + length)} are its instruction slots in the program.
 */
public record FunctionSpec(String name, String section, int pc, int length) {}
