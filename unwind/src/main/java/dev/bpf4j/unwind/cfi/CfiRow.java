package dev.bpf4j.unwind.cfi;

/**
 * One row of an FDE's unwind table: for the code {@code [pc, pcEnd)} (ELF virtual addresses), the
 * CFA and the rules for the caller's rbp and return address. {@code signalFrame}: the FDE's CIE
 * has the {@code S} augmentation.
 */
public record CfiRow(long pc, long pcEnd, CfaDefinition cfa, RegisterRule rbp, RegisterRule returnAddress, boolean signalFrame) {
    /** True when an unwinder that knows only rip, rsp and rbp can follow this row to the caller. */
    public boolean usable() {
        return cfa.usable() && !signalFrame
                && (returnAddress.kind() == RegisterRule.Kind.OFFSET || returnAddress.kind() == RegisterRule.Kind.UNDEFINED)
                && rbpUsable();
    }

    private boolean rbpUsable() {
        return switch (rbp.kind()) {
            case SAME_VALUE, UNDEFINED, OFFSET, VAL_OFFSET -> true;
            case REGISTER -> rbp.value() == CfaInterpreter.RBP || rbp.value() == CfaInterpreter.RSP;
            case EXPRESSION -> false;
        };
    }

    /** The outermost frame: the return address is undefined (glibc's {@code _start}, {@code clone3}). */
    public boolean outermost() { return returnAddress.kind() == RegisterRule.Kind.UNDEFINED; }

    @Override public String toString() {
        return String.format("0x%x-0x%x cfa=%s rbp=%s ra=%s%s", pc, pcEnd, cfa, rbp, returnAddress, signalFrame ? " signal" : "");
    }
}
