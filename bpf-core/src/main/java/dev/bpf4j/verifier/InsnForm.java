package dev.bpf4j.verifier;

/**
 * The shape of one checked slot: which fields are registers, how control leaves it, what it reads
 * and writes. The opcode checks assign one form per slot; every later pass works from the forms
 * so that no pass decodes opcodes again.
 */
enum InsnForm {
    /** ALU/ALU64 with an immediate operand ({@code dst op= imm}). */
    ALU_IMM,
    /** ALU/ALU64 with a register operand ({@code dst op= src}), including movsx. */
    ALU_REG,
    /** neg, le/be and bswap: read and write dst only. */
    ALU_UNARY,
    /** JMP|JA: {@code goto pc + 1 + off}. */
    JA,
    /** JMP32|JA ({@code gotol}): {@code goto pc + 1 + imm}. */
    JA_LONG,
    /** Conditional jump comparing dst with imm. */
    JCOND_IMM,
    /** Conditional jump comparing dst with src. */
    JCOND_REG,
    /** call of helper {@code imm}. */
    CALL_HELPER,
    /** callx (uBPF, opcode 0x8d): call of the helper whose id is in {@code dst}. */
    CALL_REG,
    /** bpf-to-bpf call to {@code pc + 1 + imm}. */
    CALL_LOCAL,
    EXIT,
    /** First slot of a 64-bit immediate load. */
    LDDW,
    /** Second slot of lddw: data, never executed. */
    LDDW_HI,
    /** Legacy packet load at a constant offset (socket filters). */
    LD_ABS,
    /** Legacy packet load at src + imm (socket filters). */
    LD_IND,
    /** dst = *(size *)(src + off), zero- or sign-extending. */
    LDX,
    /** *(size *)(dst + off) = imm. */
    ST,
    /** *(size *)(dst + off) = src. */
    STX,
    /** Atomic read-modify-write at dst + off with src (imm names the operation). */
    ATOMIC;

    boolean isJump() { return this == JA || this == JA_LONG || this == JCOND_IMM || this == JCOND_REG; }

    boolean isCall() { return this == CALL_HELPER || this == CALL_REG || this == CALL_LOCAL; }

    /** Control never falls through to the next slot. */
    boolean endsFlow() { return this == JA || this == JA_LONG || this == EXIT; }
}
