package dev.bpf4j.jvm;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A program loaded into the JVM-bytecode engine. Thread-safe: the compiled program is immutable and
 * every run borrows its own {@link JvmMachine} (registers plus an off-heap stack), so concurrent and
 * re-entrant runs never share a stack.
 */
final class JvmExecutable implements Executable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Program program;
    private final JvmProgram compiled;
    private final Machines machines;
    /** The verifier's bound this code relies on (it counts no budget), else -1; set once, before the program is handed out. */
    private long budgetBound = -1;
    private Supplier<JvmExecutable> countingLoader;
    /** The same program compiled with budget counting, for runs with less budget than the bound: made on first need. */
    private volatile JvmExecutable counting;

    JvmExecutable(Program program, JvmProgram compiled) {
        this.program = program;
        this.compiled = compiled;
        this.machines = new Machines(compiled);
        CLEANER.register(this, machines);
    }

    @Override public Program program() { return program; }

    JvmProgram compiled() { return compiled; }

    /** Marks this code as counting no budget, exact for runs with at least {@code bound}; {@code counting} compiles the twin for the others. */
    void elideBudget(long bound, Supplier<JvmExecutable> counting) {
        if (bound < 0) throw new IllegalArgumentException("bound " + bound);
        this.budgetBound = bound;
        this.countingLoader = Objects.requireNonNull(counting);
    }

    long budgetBound() { return budgetBound; }

    /** The code for a run or tail call with {@code budget} left: this one when it covers the bound, else the counting twin's. */
    JvmProgram forBudget(long budget) { return budget >= budgetBound ? compiled : countingTwin().compiled; }

    private JvmExecutable countingTwin() {
        JvmExecutable t = counting;
        if (t != null) return t;
        synchronized (this) {
            if (machines.closed) throw closedError();
            if (counting == null) counting = countingLoader.get();
            return counting;
        }
    }

    private IllegalStateException closedError() { return new IllegalStateException("program '" + program.name() + "' was closed"); }

    boolean isClosed() { return machines.closed; }

    @Override public long run(RunContext context) {
        Objects.requireNonNull(context, "context");
        if (machines.closed) throw closedError();
        if (context.budget() < budgetBound) return countingTwin().run(context);
        JvmMachine m = machines.borrow();
        try {
            m.reset(context);
            return m.execute(0, 1);
        } finally {
            m.endRun(); // a HelperCall a helper kept now fails, as in the other engines
            machines.giveBack(m);
            Reference.reachabilityFence(this);
        }
    }

    @Override public void close() {
        machines.close();
        synchronized (this) {
            if (counting != null) counting.close();
        }
    }

    /**
     * Idle machines; one is made whenever none is free. Closing frees the idle ones now and the others
     * when they come back. One idle machine sits in {@link #spare}: a run on one thread at a time takes
     * and returns it with one atomic exchange each, where the queue cost a node and two CASes per run
     * (more than half of a short program's run time in the jvm engine, JFR on the bench's parse).
     */
    private static final class Machines implements Runnable {
        private final JvmProgram program;
        private final AtomicReference<JvmMachine> spare = new AtomicReference<>();
        private final ConcurrentLinkedQueue<JvmMachine> idle = new ConcurrentLinkedQueue<>();
        volatile boolean closed;

        Machines(JvmProgram program) { this.program = program; }

        JvmMachine borrow() {
            JvmMachine m = spare.getAndSet(null);
            if (m == null) m = idle.poll();
            return m != null ? m : new JvmMachine(program);
        }

        void giveBack(JvmMachine m) {
            if (!spare.compareAndSet(null, m)) idle.offer(m);
            if (closed) freeIdle();
        }

        void close() {
            closed = true;
            freeIdle();
        }

        @Override public void run() { close(); }

        private void freeIdle() {
            for (JvmMachine m; (m = spare.getAndSet(null)) != null || (m = idle.poll()) != null; ) m.free();
        }
    }
}
