package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.ErrorKind;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What one run of one engine showed: how it ended ({@link Verdict}), r0, the error's kind, pc and
 * address (as {@link Addresses} describes it), the memory block (an object's packet) afterwards, and
 * for objects {@code state}: ctx_out and every map's contents. {@link #observable()}
 * is everything two engines must agree on, as one line.
 */
public record Observation(Verdict verdict, long r0, ErrorKind kind, int pc, String address, byte[] memAfter, String message,
                          List<String> state) {
    public enum Verdict {
        /** Ran to {@code exit}: r0 is the result. */
        RETURNED,
        /** Ended with a {@link dev.bpf4j.runtime.BpfRuntimeException} (kind + pc + address). */
        FAILED,
        /** The load was refused (validator/verifier or the engine): no run. */
        REJECTED,
        /** An exception that is not a bpf4j error: always an engine bug. */
        CRASHED,
        /** The engine gives no verdict (the kernel where bpf() is refused, or a helper id it means otherwise): not comparable. */
        SKIPPED
    }

    public Observation {
        memAfter = memAfter == null ? new byte[0] : memAfter.clone();
        state = state == null ? List.of() : List.copyOf(state);
    }

    public Observation(Verdict verdict, long r0, ErrorKind kind, int pc, String address, byte[] memAfter, String message) {
        this(verdict, r0, kind, pc, address, memAfter, message, List.of());
    }

    /** The same with what an object run leaves besides its packet: ctx_out and every map, one line each. */
    public Observation withState(List<String> lines) { return new Observation(verdict, r0, kind, pc, address, memAfter, message, lines); }

    @Override public byte[] memAfter() { return memAfter.clone(); }

    public static Observation returned(long r0, byte[] mem) { return new Observation(Verdict.RETURNED, r0, null, -1, null, mem, null); }

    public static Observation failed(ErrorKind kind, int pc, String address, byte[] mem, String message) {
        return new Observation(Verdict.FAILED, 0, kind, pc, address, mem, message);
    }

    /** A run that ended with a bpf4j error other than a {@link dev.bpf4j.runtime.BpfRuntimeException}: compared by its type and message. */
    public static Observation failedOtherwise(Throwable e, byte[] mem) {
        return new Observation(Verdict.FAILED, 0, null, -1, null, mem, e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    public static Observation rejected(String message) { return new Observation(Verdict.REJECTED, 0, null, -1, null, null, message); }

    public static Observation skipped(String reason) { return new Observation(Verdict.SKIPPED, 0, null, -1, null, null, reason); }

    public static Observation crashed(Throwable t) {
        return new Observation(Verdict.CRASHED, 0, null, -1, null, null, t.toString());
    }

    /** How the run ended, without the memory block: {@code r0 = 0x2a}, {@code OUT_OF_BOUNDS at pc 3 (address mem+0x10)}, ... */
    public String ending() {
        return switch (verdict) {
            case RETURNED -> String.format("r0 = 0x%x", r0);
            case FAILED -> kind == null ? message : kind + " at pc " + pc + (address == null ? "" : " (address " + address + ")");
            case REJECTED -> "rejected";
            case CRASHED -> "crashed: " + message;
            case SKIPPED -> "skipped: " + message;
        };
    }

    /** Everything compared between engines and between runs, as one line. */
    public String observable() {
        return ending() + (memAfter.length == 0 ? "" : "; mem " + HexFormat.of().formatHex(memAfter))
                + (state.isEmpty() ? "" : "; " + String.join("; ", state));
    }

    public boolean sameMemory(Observation o) { return Arrays.equals(memAfter, o.memAfter); }

    @Override public String toString() { return observable() + (message == null ? "" : " [" + message + "]"); }
}
