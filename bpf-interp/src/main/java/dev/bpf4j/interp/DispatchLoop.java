package dev.bpf4j.interp;

/**
 * The hot half of the dispatch loop as an object, so that a program's own copy of {@link HotLoop}
 * ({@link OwnLoops}) is called like any virtual method: where one or two programs are hot, C2
 * inlines the call to the copy's static {@code run}, which then costs what the shared loop does.
 */
interface DispatchLoop {
    /** {@link HotLoop#run} of this copy. */
    int runFrom(long[] code, long[] r, int pc);
}
