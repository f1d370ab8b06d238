package dev.bpf4j.unwind.cfi;

/**
 * Where a caller's register is kept, per DWARF 5 §6.4.1: unchanged, lost, saved at
 * {@code CFA + value}, equal to {@code CFA + value}, copied in register {@code value}, or given by
 * a DWARF expression (not evaluated: such a rule cannot be followed).
 */
public record RegisterRule(Kind kind, long value) {
    public enum Kind { SAME_VALUE, UNDEFINED, OFFSET, VAL_OFFSET, REGISTER, EXPRESSION }

    public static final RegisterRule SAME_VALUE = new RegisterRule(Kind.SAME_VALUE, 0);
    public static final RegisterRule UNDEFINED = new RegisterRule(Kind.UNDEFINED, 0);
    public static final RegisterRule EXPRESSION = new RegisterRule(Kind.EXPRESSION, 0);

    public static RegisterRule offset(long n) { return new RegisterRule(Kind.OFFSET, n); }

    @Override public String toString() {
        return switch (kind) {
            case OFFSET -> "[cfa" + (value < 0 ? "" : "+") + value + "]";
            case VAL_OFFSET -> "cfa" + (value < 0 ? "" : "+") + value;
            case REGISTER -> "r" + value;
            default -> kind.name().toLowerCase();
        };
    }
}
