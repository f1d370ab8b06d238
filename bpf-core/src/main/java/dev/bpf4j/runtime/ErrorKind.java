package dev.bpf4j.runtime;

/** Why a run ended abnormally. Both engines report the same kind at the same pc. */
public enum ErrorKind {
    /** A load or store touched memory outside every region of the invocation (or a read-only one for a write). */
    OUT_OF_BOUNDS,
    /** An atomic operation on an address that is not aligned to its size (x86 split locks; the kernel rejects it too). */
    MISALIGNED_ATOMIC,
    /** The run took more back-edges and calls than its budget allows. */
    BUDGET_EXCEEDED,
    /** A bpf-to-bpf call would exceed the maximum number of frames (8, as in the kernel). */
    CALL_DEPTH_EXCEEDED,
    /** A helper was given an argument it rejects (bad pointer or size, bad flags, ...). */
    BAD_HELPER_ARGUMENT,
    /** A helper failed in a way the program cannot observe through its return value. */
    HELPER_FAILED
}
