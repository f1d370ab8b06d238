package dev.bpf4j.verifier;

import dev.bpf4j.runtime.BpfLoadException;

/** A program the validator rejects: the program, the pc and the reason, as in the kernel's log ("pc: reason"). */
public final class VerifierException extends BpfLoadException {
    private final String program;
    private final int pc;
    private final String reason;

    public VerifierException(String program, int pc, String reason) {
        super("program '" + program + "' rejected: " + pc + ": " + reason);
        this.program = program;
        this.pc = pc;
        this.reason = reason;
    }

    public String program() { return program; }
    public int pc() { return pc; }
    public String reason() { return reason; }
}
