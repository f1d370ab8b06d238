package dev.bpf4j.cli.jited;

/**
 * One line of machine code in a listing: its offset in the image, its bytes as hex pairs and the
 * instruction text (empty when no disassembler was available and the bytes stand alone).
 */
public record X86Line(int offset, String hex, String text) {}
