package dev.bpf4j.isa;

/**
 * The operand layout of an instruction form: which slot fields carry operands. Fields a shape does
 * not name are fixed by the form (see {@link InsnForm}) or must be zero.
 */
public enum Shape {
    /** {@code dst op= src}: dst, src. */
    ALU_REG,
    /** {@code dst op= imm}: dst, imm. */
    ALU_IMM,
    /** {@code neg dst}: dst only. */
    ALU_UNARY,
    /** Sign-extending move {@code dst = (sN) src}: dst, src; off fixed to the width. */
    MOVSX,
    /** Byte swap {@code le/be/bswap}: dst; imm fixed to the width. */
    END,
    /** 64-bit immediate load over two slots: dst, imm64. */
    LDDW,
    /** Legacy packet load {@code BPF_ABS}: imm. */
    LD_ABS,
    /** Legacy packet load {@code BPF_IND}: src, imm. */
    LD_IND,
    /** {@code dst = *(size *)(src + off)}: dst, src, off. */
    LDX,
    /** {@code *(size *)(dst + off) = imm}: dst, off, imm. */
    ST,
    /** {@code *(size *)(dst + off) = src}: dst, off, src. */
    STX,
    /** Atomic read-modify-write on {@code (dst + off)} with src; imm fixed to the operation. */
    ATOMIC,
    /** {@code goto +off}. */
    JA,
    /** {@code gotol +imm} (JMP32 | JA, cpu v4). */
    GOTOL,
    /** {@code if dst op imm goto +off}. */
    JCOND_IMM,
    /** {@code if dst op src goto +off}. */
    JCOND_REG,
    /** {@code call imm} with src fixed: helper id, pc-relative local call or kfunc id. */
    CALL,
    /** {@code callx dst}: call through a register. */
    CALLX,
    /** {@code exit}. */
    EXIT
}
