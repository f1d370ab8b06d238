package dev.bpf4j.runtime;

/**
 * The run-time rules every engine applies the same way, with the same errors (kind, pc, text):
 * opening a callback frame, tail calls and helper scratch buffers (docs/runtime-semantics.md).
 * Engines keep their own state; the checks and the words live here once.
 */
public final class RunRules {
    private RunRules() {}

    /** {@code handle} must be a function address of the running program ({@code lddw src=4}). */
    public static void checkCallbackHandle(HelperCall call, boolean isFunction, long handle) {
        if (!isFunction) {
            throw call.badArgument(String.format("callback 0x%x is not a function address (lddw src=4) of program '%s'",
                    handle, call.programName()));
        }
    }

    /**
     * A callback opens a frame like {@code call local}: one budget unit first, then the depth, both
     * at the helper's pc. {@code budgetLeft} is the budget before this event; {@code depth} the
     * frames open now.
     */
    public static void checkFrameOpen(String program, int pc, long budgetLeft, long budgetLimit, long depth) {
        if (budgetLeft <= 0) throw BpfRuntimeException.budgetExceeded(program, pc, budgetLimit);
        if (depth >= Limits.MAX_CALL_FRAMES) throw BpfRuntimeException.callDepthExceeded(program, pc, Limits.MAX_CALL_FRAMES);
    }

    /** bpf4j allows tail calls only from the main program's frame (depth 1). */
    public static void checkTailCallDepth(String program, int pc, long depth) {
        if (depth != 1) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0, "bpf_tail_call from frame depth " + depth
                    + " (a subprogram or callback): bpf4j allows tail calls only from the main program's frame");
        }
    }

    /** A prog-array slot holds a program another engine loaded: this engine cannot jump into it. */
    public static BpfRuntimeException foreignTailCallTarget(String program, int pc, Object target, String engine) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0, "bpf_tail_call: the prog-array slot holds "
                + target.getClass().getName() + ", not a program loaded by the " + engine
                + " engine (fill prog arrays with executables of the engine that runs them)");
    }

    /** The target was closed while a prog array still held it. */
    public static BpfRuntimeException closedTailCallTarget(String program, int pc, String target) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0,
                "bpf_tail_call: target program '" + target + "' was closed while still in a prog array");
    }

    /** A helper's scratch buffer is 1 to one frame's bytes. */
    public static void checkScratchSize(HelperCall call, int size) {
        if (size < 1 || size > Limits.STACK_SIZE) {
            throw call.badArgument("scratch buffer of " + size + " bytes (1 to " + Limits.STACK_SIZE + ")");
        }
    }
}
