package dev.bpf4j.runtime;

import java.util.Objects;

/**
 * A run that ended abnormally: the program, the pc of the instruction that failed, the kind and,
 * for memory errors, the address. Both engines throw the same kind at the same pc.
 */
public final class BpfRuntimeException extends BpfException {
    private final ErrorKind kind;
    private final String program;
    private final int pc;
    private final long address;
    private final String reason;

    public BpfRuntimeException(ErrorKind kind, String program, int pc, long address, String reason) {
        super("program '" + program + "' pc " + pc + ": " + kind.name().toLowerCase().replace('_', ' ') + ": " + reason);
        this.kind = Objects.requireNonNull(kind);
        this.program = program;
        this.pc = pc;
        this.address = address;
        this.reason = reason;
    }

    public static BpfRuntimeException outOfBounds(String program, int pc, long address, int size, boolean write) {
        return new BpfRuntimeException(ErrorKind.OUT_OF_BOUNDS, program, pc, address,
                String.format("%d-byte %s at 0x%x is outside every region of this run", size, write ? "write" : "read", address));
    }

    public static BpfRuntimeException misalignedAtomic(String program, int pc, long address, int size) {
        return new BpfRuntimeException(ErrorKind.MISALIGNED_ATOMIC, program, pc, address,
                String.format("%d-byte atomic at 0x%x is not %d-byte aligned", size, address, size));
    }

    public static BpfRuntimeException budgetExceeded(String program, int pc, long budget) {
        return new BpfRuntimeException(ErrorKind.BUDGET_EXCEEDED, program, pc, 0,
                "more than " + budget + " back-edges and calls (runaway loop?); raise RunContext budget if this is intended");
    }

    public static BpfRuntimeException callDepthExceeded(String program, int pc, int maxFrames) {
        return new BpfRuntimeException(ErrorKind.CALL_DEPTH_EXCEEDED, program, pc, 0,
                "bpf-to-bpf call would exceed " + maxFrames + " frames");
    }

    /** {@code callx}: the register held {@code id}, which names no registered helper (HELPER_FAILED at the callx). */
    public static BpfRuntimeException unknownHelper(String program, int pc, int register, long id) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0,
                String.format("callx: r%d = %d (0x%x) is not the id of a registered helper", register, id, id));
    }

    public ErrorKind kind() { return kind; }
    public String program() { return program; }
    public int pc() { return pc; }
    public long address() { return address; }
    public String reason() { return reason; }
}
