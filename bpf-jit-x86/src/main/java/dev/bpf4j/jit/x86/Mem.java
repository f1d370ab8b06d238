package dev.bpf4j.jit.x86;

/** A memory operand {@code [base + disp]}: the only addressing form the JIT needs. */
public record Mem(X86Reg base, int disp) {
    public static Mem of(X86Reg base, int disp) { return new Mem(base, disp); }

    @Override public String toString() {
        if (disp == 0) return "[" + base.name64() + "]";
        return "[" + base.name64() + (disp < 0 ? " - " + (-(long) disp) : " + " + disp) + "]";
    }
}
