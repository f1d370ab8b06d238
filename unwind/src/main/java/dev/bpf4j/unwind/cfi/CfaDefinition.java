package dev.bpf4j.unwind.cfi;

/**
 * How the Canonical Frame Address (the caller's rsp, just above the return address) is computed at
 * a pc: {@code register + offset}; {@code [register + offset]} (a saved rsp: signal frames,
 * realigned stacks); the lazy-binding PLT pattern {@code rsp + offset + ((rip & 15) >= threshold ? 8 : 0)};
 * or another DWARF expression, which bpf4j does not evaluate ({@link Kind#EXPRESSION}: unusable).
 */
public record CfaDefinition(Kind kind, int register, long offset, int threshold) {
    public enum Kind { REGISTER_OFFSET, DEREF, PLT, EXPRESSION }

    public static final CfaDefinition EXPRESSION = new CfaDefinition(Kind.EXPRESSION, -1, 0, 0);

    public static CfaDefinition registerOffset(int register, long offset) { return new CfaDefinition(Kind.REGISTER_OFFSET, register, offset, 0); }

    /** Only rsp (7) and rbp (6) are known to an unwinder that starts from (ip, sp, bp). */
    public boolean usable() { return kind != Kind.EXPRESSION && (register == CfaInterpreter.RSP || register == CfaInterpreter.RBP); }

    @Override public String toString() {
        String r = "r" + register;
        return switch (kind) {
            case REGISTER_OFFSET -> r + (offset < 0 ? "" : "+") + offset;
            case DEREF -> "[" + r + (offset < 0 ? "" : "+") + offset + "]";
            case PLT -> "rsp+" + offset + "+plt(" + threshold + ")";
            case EXPRESSION -> "expression";
        };
    }
}
