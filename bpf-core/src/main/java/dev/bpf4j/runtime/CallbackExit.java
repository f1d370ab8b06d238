package dev.bpf4j.runtime;

/**
 * Thrown out of {@link HelperCall#callSubprogram} when a helper inside the callback ended the run
 * ({@link HelperCall#exit}): it unwinds the helper that ran the callback, whose engine then ends
 * the run with the exit value. Every engine catches it around its helper calls, so it never escapes
 * a run; it carries no stack trace.
 */
public final class CallbackExit extends RuntimeException {
    public static final CallbackExit INSTANCE = new CallbackExit();

    private CallbackExit() { super("run exited inside a callback", null, false, false); }
}
