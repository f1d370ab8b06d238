package dev.bpf4j.runtime;

import dev.bpf4j.program.Program;

/** A loaded program ready to run any number of times, from any thread. */
public interface Executable extends AutoCloseable {
    Program program();

    /** Runs once and returns r0, or throws {@link BpfRuntimeException}. */
    long run(RunContext context);

    /**
     * Runs {@code times} (at least 1) times on the same context, each run seeing the previous one's
     * changes, as the kernel's {@code BPF_PROG_TEST_RUN} with {@code repeat}; returns the last r0 and
     * stops at the first failing run (its {@link BpfRuntimeException}). An engine may run the loop
     * itself, so that timing the call times the program and not the way into it.
     */
    default long runRepeated(RunContext context, int times) {
        if (times < 1) throw new IllegalArgumentException("times must be at least 1: " + times);
        long r0 = 0;
        for (int i = 0; i < times; i++) r0 = run(context);
        return r0;
    }

    /** Releases native resources (JIT code, ...); running after close is an error. */
    @Override void close();
}
