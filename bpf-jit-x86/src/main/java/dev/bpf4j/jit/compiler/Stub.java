package dev.bpf4j.jit.compiler;

/** The shared out-of-line routines emitted once per program after all functions. */
enum Stub {
    /** {@code long entry(fn, env)}: runs a callback function from Java (HelperCall.callSubprogram). First in the stub block. */
    CALLBACK_ENTRY,
    /** Restores the entry frame's registers and returns to Java; the env says why. */
    ERROR_EXIT,
    /** r11d = pc: records BUDGET_EXCEEDED, then ERROR_EXIT. */
    RAISE_BUDGET,
    /** r11d = pc: records CALL_DEPTH_EXCEEDED, then ERROR_EXIT. */
    RAISE_CALL_DEPTH,
    /** r10 = address, r11d = access descriptor: records MISALIGNED_ATOMIC, then ERROR_EXIT. */
    RAISE_MISALIGNED,
    /** r10 = address, r11d = access descriptor: returns when allowed, else records OUT_OF_BOUNDS. */
    MEM_CHECK
}
