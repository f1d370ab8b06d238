package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A program loaded into the interpreter. Thread-safe: the decoded program is immutable and every
 * run borrows its own {@link Machine} (registers plus an off-heap stack) from a {@link MachinePool},
 * so concurrent and re-entrant runs (a helper running the program again) never share a stack.
 */
final class InterpretedExecutable implements Executable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Program program;
    private final DecodedProgram decoded;
    private final MachinePool machines;

    InterpretedExecutable(Program program, DecodedProgram decoded) {
        this.program = program;
        this.decoded = decoded;
        this.machines = new MachinePool(decoded);
        CLEANER.register(this, machines);
    }

    @Override public Program program() { return program; }

    @Override public long run(RunContext context) {
        Objects.requireNonNull(context, "context");
        if (machines.isClosed()) {
            machines.close(); // frees this thread's machine if it owns it
            throw new IllegalStateException("program '" + program.name() + "' was closed");
        }
        Machine m = machines.borrow();
        try {
            m.reset(context);
            return Interpreter.execute(decoded, m, context.budget());
        } finally {
            m.endRun(); // a HelperCall a helper kept now fails, as in the JIT
            machines.giveBack(m);
            Reference.reachabilityFence(this); // the cleaner must not free a machine in use
        }
    }

    /** Frees what no run uses now; the cleaner frees the rest once this executable is unreachable. */
    @Override public void close() { machines.close(); }

    boolean isClosed() { return machines.isClosed(); }

    /** For a tail call into this program from another run's machine. */
    DecodedProgram decoded() { return decoded; }
}
