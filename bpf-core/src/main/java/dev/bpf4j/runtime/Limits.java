package dev.bpf4j.runtime;

/** Kernel limits both engines enforce identically. */
public final class Limits {
    private Limits() {}
    /** Bytes of stack each frame (main program and every subprogram) gets: [r10 - 512, r10). */
    public static final int STACK_SIZE = 512;
    /** Frames a bpf-to-bpf call chain may hold, the main program included (kernel MAX_CALL_FRAMES). */
    public static final int MAX_CALL_FRAMES = 8;
    /** Default number of taken back-edges plus calls one run may execute. */
    public static final long DEFAULT_BUDGET = 1_000_000;
    /** Tail calls one run may make (kernel MAX_TAIL_CALL_CNT). */
    public static final int MAX_TAIL_CALLS = 33;
}
