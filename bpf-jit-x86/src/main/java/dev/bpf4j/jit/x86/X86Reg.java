package dev.bpf4j.jit.x86;

/** The sixteen x86-64 general-purpose registers with their 4-bit encodings. */
public enum X86Reg {
    RAX(0), RCX(1), RDX(2), RBX(3), RSP(4), RBP(5), RSI(6), RDI(7),
    R8(8), R9(9), R10(10), R11(11), R12(12), R13(13), R14(14), R15(15);

    /** The full 4-bit register number; bit 3 goes into a REX prefix. */
    public final int code;

    X86Reg(int code) { this.code = code; }

    /** The low three bits that go into ModRM/SIB/opcode. */
    public int low3() { return code & 7; }

    /** True for r8-r15, which need REX.R/X/B. */
    public boolean extended() { return code >= 8; }

    /** True for spl/bpl/sil/dil, whose byte form exists only with a REX prefix. */
    public boolean byteNeedsRex() { return code >= 4 && code <= 7; }

    public String name64() { return name().toLowerCase(); }

    public String name32() {
        if (extended()) return name64() + "d";
        return "e" + name64().substring(1);
    }
}
