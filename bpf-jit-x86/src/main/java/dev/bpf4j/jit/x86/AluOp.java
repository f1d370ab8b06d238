package dev.bpf4j.jit.x86;

/**
 * The classic two-operand integer operations that share one encoding scheme: {@code op r/m, r}
 * at {@code base + 1}, {@code op r, r/m} at {@code base + 3}, {@code op rax, imm32} at
 * {@code base + 5}, and {@code 81 / 83 /ext} for immediates.
 */
public enum AluOp {
    ADD(0x00, 0), OR(0x08, 1), AND(0x20, 4), SUB(0x28, 5), XOR(0x30, 6), CMP(0x38, 7);

    public final int base;
    /** The ModRM reg field of the immediate forms. */
    public final int ext;

    AluOp(int base, int ext) { this.base = base; this.ext = ext; }

    public String mnemonic() { return name().toLowerCase(); }
}
