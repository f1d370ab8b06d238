package dev.bpf4j.jit.runtime;

/**
 * Thrown out of {@code callSubprogram} when a helper inside the callback ended the run
 * ({@code HelperCall.exit}): it unwinds the outer helper, whose call then returns with STATUS_EXIT
 * still set (the interpreter's ExitSignal).
 */
final class CallbackExit extends RuntimeException {
    static final CallbackExit INSTANCE = new CallbackExit();

    private CallbackExit() { super("callback ended the run", null, false, false); }
}
