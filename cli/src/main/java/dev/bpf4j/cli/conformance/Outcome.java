package dev.bpf4j.cli.conformance;

import dev.bpf4j.runtime.BpfRuntimeException;

import java.util.Arrays;

/**
 * What one engine did with one program: returned r0, or failed with an error, and the memory
 * block afterwards. {@code crash} marks an exception that is not a bpf4j error (an engine bug,
 * never an acceptable answer). {@code skipped} means the engine gave no verdict (the kernel verifier
 * refused the program, see {@link dev.bpf4j.cli.KernelSkip}); {@code message} then says why.
 */
public record Outcome(String engine, boolean failed, long r0, String message, boolean crash, String errorKey, byte[] memAfter,
                      boolean skipped) {
    public Outcome(String engine, boolean failed, long r0, String message, boolean crash, String errorKey, byte[] memAfter) {
        this(engine, failed, r0, message, crash, errorKey, memAfter, false);
    }

    /** The engine has no verdict on this program (not a failure, not compared). */
    public static Outcome skipped(String engine, String reason) {
        return new Outcome(engine, true, 0, reason, false, "skipped", new byte[0], true);
    }

    public static Outcome value(String engine, long r0, byte[] memAfter) {
        return new Outcome(engine, false, r0, null, false, null, memAfter);
    }

    public static Outcome error(String engine, Throwable e, byte[] memAfter) {
        String key = e instanceof BpfRuntimeException r ? r.kind() + "@" + r.pc() : e.getClass().getSimpleName();
        return new Outcome(engine, true, 0, describe(e), false, key, memAfter);
    }

    public static Outcome crash(String engine, Throwable e) {
        return new Outcome(engine, true, 0, "crashed: " + describe(e), true, "crash", new byte[0]);
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    }

    /**
     * True when two engines agree: the same r0 (or errors of the same kind at the same pc) and the
     * same memory block afterwards.
     */
    public boolean agreesWith(Outcome o) {
        if (failed != o.failed || !Arrays.equals(memAfter, o.memAfter)) return false;
        return failed ? errorKey.equals(o.errorKey) : r0 == o.r0;
    }

    @Override public String toString() {
        return failed ? "error: " + message : "r0 = " + r0 + String.format(" (0x%x)", r0);
    }
}
