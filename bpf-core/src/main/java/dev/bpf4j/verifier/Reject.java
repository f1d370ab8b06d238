package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;

/** Builds the {@link VerifierException}s of one program, so every check words its reason the same way. */
final class Reject {
    private final String program;

    Reject(String program) { this.program = program; }

    VerifierException at(int pc, String reason) { return new VerifierException(program, pc, reason); }

    VerifierException unknownOpcode(int pc, Insn insn) {
        return at(pc, String.format("unknown opcode 0x%02x", insn.opcode()));
    }

    VerifierException notSupported(int pc, String what) {
        return at(pc, what + " is not supported");
    }

    /** A field the instruction does not use must be 0 (RFC 9669: reserved, "MUST be set to zero"). */
    void requireZero(int pc, Insn insn, String field, int value) {
        if (value != 0) {
            throw at(pc, "reserved field " + field + "=" + value + " must be 0 for " + OpcodeNames.of(insn.opcode()));
        }
    }
}
