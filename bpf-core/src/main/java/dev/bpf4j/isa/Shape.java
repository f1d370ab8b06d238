package dev.bpf4j.isa;

/**
 * The operand layout of an instruction form: which slot fields carry operands. Fields a shape does
 * not use are fixed by the form (see {@link InsnEncoding}) or reserved, and must then be zero.
 */
public enum Shape {
    /** {@code dst op= src}: dst, src. */
    ALU_REG(true, true, false, false),
    /** {@code dst op= imm}: dst, imm. */
    ALU_IMM(true, false, false, true),
    /** {@code neg dst}: dst only. */
    ALU_UNARY(true, false, false, false),
    /** Sign-extending move {@code dst = (sN) src}: dst, src; off fixed to the width. */
    MOVSX(true, true, false, false),
    /** Byte swap {@code le/be/bswap}: dst; imm fixed to the width. */
    END(true, false, false, false),
    /** 64-bit immediate load over two slots: dst, imm64. */
    LDDW(true, false, false, true),
    /** Legacy packet load {@code BPF_ABS}: imm. */
    LD_ABS(false, false, false, true),
    /** Legacy packet load {@code BPF_IND}: src, imm. */
    LD_IND(false, true, false, true),
    /** {@code dst = *(size *)(src + off)}: dst, src, off. */
    LDX(true, true, true, false),
    /** {@code *(size *)(dst + off) = imm}: dst, off, imm. */
    ST(true, false, true, true),
    /** {@code *(size *)(dst + off) = src}: dst, off, src. */
    STX(true, true, true, false),
    /** Atomic read-modify-write on {@code (dst + off)} with src; imm fixed to the operation. */
    ATOMIC(true, true, true, false),
    /** {@code goto +off}. */
    JA(false, false, true, false),
    /** {@code gotol +imm} (JMP32 | JA, cpu v4). */
    GOTOL(false, false, false, true),
    /** {@code if dst op imm goto +off}. */
    JCOND_IMM(true, false, true, true),
    /** {@code if dst op src goto +off}. */
    JCOND_REG(true, true, true, false),
    /** {@code call imm} with src fixed: helper id, pc-relative local call or kfunc id. */
    CALL(false, false, false, true),
    /** {@code callx dst}: call through a register. */
    CALLX(true, false, false, false),
    /** {@code exit}. */
    EXIT(false, false, false, false);

    private final boolean dst, src, off, imm;

    Shape(boolean dst, boolean src, boolean off, boolean imm) {
        this.dst = dst;
        this.src = src;
        this.off = off;
        this.imm = imm;
    }

    /** Whether the dst field is an operand (otherwise it must be zero). */
    public boolean usesDst() { return dst; }
    /** Whether the src field is an operand (otherwise it is fixed by the form or must be zero). */
    public boolean usesSrc() { return src; }
    /** Whether the offset field is an operand (otherwise it is fixed by the form or must be zero). */
    public boolean usesOff() { return off; }
    /** Whether the imm field is an operand (otherwise it is fixed by the form or must be zero). */
    public boolean usesImm() { return imm; }
}
