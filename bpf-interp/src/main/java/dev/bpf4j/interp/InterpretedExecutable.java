package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A program loaded into the interpreter. Thread-safe: the decoded program is immutable and every
 * run borrows its own {@link Machine} (registers plus an off-heap stack) from a pool, so concurrent
 * and re-entrant runs (a helper running the program again) never share a stack.
 */
final class InterpretedExecutable implements Executable {
    private final Program program;
    private final DecodedProgram decoded;
    private final ConcurrentLinkedQueue<Machine> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    InterpretedExecutable(Program program, DecodedProgram decoded) {
        this.program = program;
        this.decoded = decoded;
    }

    @Override public Program program() { return program; }

    @Override public long run(RunContext context) {
        Objects.requireNonNull(context, "context");
        if (closed) throw new IllegalStateException("program '" + program.name() + "' was closed");
        Machine m = idle.poll();
        if (m == null) m = new Machine(decoded);
        try {
            m.reset(context);
            return Interpreter.execute(decoded, m, context.budget());
        } finally {
            release(m);
        }
    }

    private void release(Machine m) {
        idle.offer(m);
        if (closed) freeIdle(); // closed while this run was in flight
    }

    @Override public void close() {
        closed = true;
        freeIdle();
    }

    private void freeIdle() {
        for (Machine m; (m = idle.poll()) != null; ) m.free();
    }
}
