package dev.bpf4j.runtime;

import dev.bpf4j.program.Program;

/** A loaded program ready to run any number of times, from any thread. */
public interface Executable extends AutoCloseable {
    Program program();

    /** Runs once and returns r0, or throws {@link BpfRuntimeException}. */
    long run(RunContext context);

    /** Releases native resources (JIT code, ...); running after close is an error. */
    @Override void close();
}
