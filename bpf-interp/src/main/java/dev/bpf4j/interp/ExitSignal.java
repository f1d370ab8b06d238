package dev.bpf4j.interp;

/**
 * Unwinds the helper that ran a callback when a helper inside that callback ended the run with
 * {@link dev.bpf4j.runtime.HelperCall#exit}: the outer helper is abandoned, the run ends with the
 * exit value. Never escapes {@link Machine#callHelper}; carries no stack trace.
 */
final class ExitSignal extends RuntimeException {
    static final ExitSignal INSTANCE = new ExitSignal();

    private ExitSignal() { super("run exited inside a callback", null, false, false); }
}
