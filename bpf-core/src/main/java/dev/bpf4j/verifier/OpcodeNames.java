package dev.bpf4j.verifier;

import static dev.bpf4j.isa.Opcodes.*;

/** Spells an opcode byte with the RFC 9669 field names for error messages, e.g. {@code ALU64 ADD K (0x07)}. */
final class OpcodeNames {
    private OpcodeNames() {}

    private static final String[] CLASSES = {"LD", "LDX", "ST", "STX", "ALU", "JMP", "JMP32", "ALU64"};
    private static final String[] ALU_OPS = {"ADD", "SUB", "MUL", "DIV", "OR", "AND", "LSH", "RSH",
            "NEG", "MOD", "XOR", "MOV", "ARSH", "END", "0xe0", "0xf0"};
    private static final String[] JMP_OPS = {"JA", "JEQ", "JGT", "JGE", "JSET", "JNE", "JSGT", "JSGE",
            "CALL", "EXIT", "JLT", "JLE", "JSLT", "JSLE", "0xe0", "0xf0"};
    private static final String[] MODES = {"IMM", "ABS", "IND", "MEM", "MEMSX", "0xa0", "ATOMIC", "0xe0"};
    private static final String[] SIZES = {"W", "H", "B", "DW"};

    static String of(int opcode) {
        int cls = cls(opcode);
        String text;
        if (isAlu(opcode)) {
            String src = op(opcode) == END ? (source(opcode) == TO_BE ? "BE" : "LE") : (source(opcode) == X ? "X" : "K");
            text = CLASSES[cls] + " " + ALU_OPS[op(opcode) >> 4] + " " + src;
        } else if (isJmp(opcode)) {
            text = CLASSES[cls] + " " + JMP_OPS[op(opcode) >> 4] + " " + (source(opcode) == X ? "X" : "K");
        } else {
            text = CLASSES[cls] + " " + MODES[mode(opcode) >> 5] + " " + SIZES[size(opcode) >> 3];
        }
        return text + String.format(" (0x%02x)", opcode);
    }
}
