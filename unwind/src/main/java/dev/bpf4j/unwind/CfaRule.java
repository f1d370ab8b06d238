package dev.bpf4j.unwind;

/**
 * Where the return address and the caller's stack and frame pointers are, for an instruction of a
 * function with a standard x86-64 rbp frame ({@code push rbp; mov rbp, rsp; ...; leave; ret}).
 */
public enum CfaRule {
    /** Before {@code push rbp} and after {@code leave}: ra = [rsp], caller sp = rsp + 8, bp unchanged. */
    RETURN_AT_SP,
    /** After {@code push rbp}, before {@code mov rbp, rsp}: ra = [rsp + 8], caller bp = [rsp], caller sp = rsp + 16. */
    RETURN_AT_SP_PLUS_8,
    /** From {@code mov rbp, rsp} up to and including {@code leave}: ra = [rbp + 8], caller bp = [rbp], caller sp = rbp + 16. */
    FRAME_POINTER
}
