package dev.bpf4j.runtime;

/**
 * What a helper sees of the run that called it. Engines implement it; helpers use it to check
 * pointer arguments against the run's memory and to end the run early.
 */
public interface HelperCall {
    /** Name of the running program. */
    String programName();

    /** pc of the {@code call} instruction. */
    int pc();

    /**
     * True when {@code [address, address + size)} is memory the program may read (or write) in this
     * run: a region or a live stack frame.
     */
    boolean accessible(long address, long size, boolean write);

    /** Ends the run after this helper returns, with r0 = {@code r0} (the conformance suites' "unwind"). */
    void exit(long r0);

    /**
     * The context the run was started with (its registers and stack snapshot are the stack source of
     * {@code bpf_get_stackid}/{@code bpf_get_stack}); null when the engine does not expose it.
     */
    default RunContext runContext() { return null; }

    /** Throws a {@link ErrorKind#BAD_HELPER_ARGUMENT} error naming this call. */
    default BpfRuntimeException badArgument(String reason) {
        return new BpfRuntimeException(ErrorKind.BAD_HELPER_ARGUMENT, programName(), pc(), 0, reason);
    }

    /** Checks a pointer/size argument pair, throwing a clear error when it is not accessible. */
    default void checkArgument(String what, long address, long size, boolean write) {
        if (size < 0 || (size > 0 && !accessible(address, size, write))) {
            throw badArgument(String.format("%s: %d bytes at 0x%x are not %s by this program",
                    what, size, address, write ? "writable" : "readable"));
        }
    }
}
