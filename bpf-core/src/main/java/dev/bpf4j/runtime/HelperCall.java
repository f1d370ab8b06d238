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
     * run: a region or, when some argument of this call may be a stack pointer (the verifier's
     * {@link dev.bpf4j.verifier.InsnAux}), a live stack frame.
     */
    boolean accessible(long address, long size, boolean write);

    /**
     * As {@link #accessible(long, long, boolean)} for memory the helper reaches through argument
     * register {@code argReg} (1-5): a live frame only when the verifier typed that argument as a
     * stack pointer, so a pointer of another kind never reaches what lies in one engine's frames.
     */
    default boolean accessible(int argReg, long address, long size, boolean write) { return accessible(address, size, write); }

    /** Ends the run after this helper returns, with r0 = {@code r0} (the conformance suites' "unwind"). */
    void exit(long r0);

    /**
     * The context the run was started with (its registers and stack snapshot are the stack source of
     * {@code bpf_get_stackid}/{@code bpf_get_stack}); null when the engine does not expose it.
     */
    default RunContext runContext() { return null; }

    /**
     * Runs the subprogram behind {@code handle} as a bpf-to-bpf call made at this helper's pc, with
     * r1-r5 = the arguments, and returns its r0 (the callbacks of {@code bpf_loop} and
     * {@code bpf_for_each_map_elem}). {@code handle} is the value an {@code lddw rX, src=4}
     * (function address) of the running program loaded: an engine-private value (the interpreter's
     * tagged pc, the JIT's native address). The call spends one unit of budget and opens a frame,
     * exactly as {@code call local} does (budget first, then the 8-frame limit, both reported at
     * this helper's pc); the caller's r6-r10 are preserved. Errors of the subprogram end the run.
     * A handle that is not a function address of the running program is BAD_HELPER_ARGUMENT.
     * Engines without callbacks keep this default, which ends the run with HELPER_FAILED.
     */
    default long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, programName(), pc(), 0,
                "this engine does not run callbacks (bpf_loop, bpf_for_each_map_elem)");
    }

    /**
     * The engine half of {@code bpf_tail_call}, called after the helper has checked the index
     * against {@code max_entries}. Counts one tail call of this run; when the run already made
     * {@link Limits#MAX_TAIL_CALLS}, or {@code target} is null (an empty slot, which does not count,
     * as in Linux's x86-64 and arm64 JITs), returns false and the program continues after the call. Otherwise, after the helper
     * returns, the running program is replaced by {@code target} — the executable stored in the
     * prog-array slot, which must come from the same engine (else HELPER_FAILED) — starting at its
     * pc 0 with the same registers (r1 = the context) and the same stack frame; returns true. Only
     * the main program's frame may tail call: from a subprogram or callback it is HELPER_FAILED.
     * Engines without tail calls keep this default, which ends the run with HELPER_FAILED.
     */
    default boolean tailCall(Object target) {
        throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, programName(), pc(), 0,
                "this engine does not support bpf_tail_call");
    }

    /**
     * A buffer of {@code size} bytes (1 to {@link Limits#STACK_SIZE}) private to this helper call,
     * which the program may read — not write — until the helper returns: the key
     * {@code bpf_for_each_map_elem} hands its callback lives here. Calling it again during the same
     * helper call returns the same buffer. Engines without it keep this default (HELPER_FAILED).
     */
    default long scratch(int size) {
        throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, programName(), pc(), 0,
                "this engine has no helper scratch buffers");
    }

    /**
     * Replaces region {@code old} of this run's region table by {@code now} for the rest of the run: a
     * helper moved the packet ({@code bpf_xdp_adjust_head}/{@code _tail}/{@code _meta}), and every later
     * access, checked or by a helper, is judged against the new bounds. Engines without it keep this
     * default (HELPER_FAILED).
     */
    default void replaceRegion(MemoryRegion old, MemoryRegion now) {
        throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, programName(), pc(), 0,
                "this engine cannot move the packet (bpf_xdp_adjust_head/_tail/_meta)");
    }

    /**
     * The packet's linear data is {@code [data, data + length)} from now on: a helper moved it along
     * with its region ({@link #replaceRegion}), and LD ABS/IND read it as the kernel's loads read
     * {@code skb->data} and {@code skb->len} when they run, not as the run began. Engines that run
     * LD ABS/IND override it; for the others there is nothing to move.
     */
    default void packetDataMoved(long data, long length) {}

    /** Throws a {@link ErrorKind#BAD_HELPER_ARGUMENT} error naming this call. */
    default BpfRuntimeException badArgument(String reason) {
        return new BpfRuntimeException(ErrorKind.BAD_HELPER_ARGUMENT, programName(), pc(), 0, reason);
    }

    /** Checks a pointer/size argument pair, throwing a clear error when it is not accessible. */
    default void checkArgument(String what, long address, long size, boolean write) {
        checkArgument(0, what, address, size, write);
    }

    /** As above, for the memory of argument register {@code argReg} (1-5; 0: not one argument). */
    default void checkArgument(int argReg, String what, long address, long size, boolean write) {
        boolean ok = argReg == 0 ? accessible(address, size, write) : accessible(argReg, address, size, write);
        if (size < 0 || (size > 0 && !ok)) {
            throw badArgument(String.format("%s: %d bytes at 0x%x are not %s by this program",
                    what, size, address, write ? "writable" : "readable"));
        }
    }
}
