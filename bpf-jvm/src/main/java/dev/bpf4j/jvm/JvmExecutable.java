package dev.bpf4j.jvm;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
     * The machines of this executable, as the interpreter's {@code MachinePool}: the first thread to run
     * it owns one machine, which it borrows and gives back with plain field accesses (the two atomic
     * operations of a shared borrow were about 10 ns of the 22 ns an empty run cost, bench/RESULTS.md);
     * every other run (other threads, or the owner re-entering from a helper) borrows a shared machine:
     * one spare taken by one exchange, then a queue, a new one when none is idle.
     *
     * <p>{@link #close()} frees the idle shared machines at once and the others when they come back. The
     * owned machine is freed by close only when the closing thread is its owner or the owner has
     * terminated; otherwise by the owner's next give-back, or by {@link #run()}, which the cleaner calls
     * once the executable is unreachable (no run is in flight then: {@code run} keeps it reachable).
     */
    private static final class Machines implements Runnable {
        private static final VarHandle OWNED;
        static {
            try {
                OWNED = MethodHandles.lookup().findVarHandle(Machines.class, "owned", JvmMachine.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final JvmProgram program;
        /** The owner thread's machine, null until a first run claims it. */
        private volatile JvmMachine owned;
        private final AtomicReference<JvmMachine> spare = new AtomicReference<>();
        private final ConcurrentLinkedQueue<JvmMachine> idle = new ConcurrentLinkedQueue<>();
        volatile boolean closed;

        Machines(JvmProgram program) { this.program = program; }

        JvmMachine borrow() {
            JvmMachine o = owned;
            if (o != null) {
                if (o.owner == Thread.currentThread() && !o.busy) {
                    o.busy = true;
                    return o;
                }
            } else {
                JvmMachine mine = new JvmMachine(program, Thread.currentThread());
                if (OWNED.compareAndSet(this, null, mine)) {
                    mine.busy = true;
                    return mine;
                }
                mine.free(); // another thread claimed it first
            }
            JvmMachine m = spare.getAndSet(null);
            if (m == null) m = idle.poll();
            return m != null ? m : new JvmMachine(program, null);
        }

        void giveBack(JvmMachine m) {
            if (m.owner != null) { // only its owner gets here with it
                m.busy = false;
                if (closed) m.free();
                return;
            }
            if (!spare.compareAndSet(null, m)) idle.offer(m);
            if (closed) freeIdle(); // closed while this run was in flight
        }

        void close() {
            closed = true;
            freeIdle();
            JvmMachine o = owned;
            if (o == null) return;
            if (o.owner == Thread.currentThread() ? !o.busy : !o.owner.isAlive()) o.free();
        }

        /** Frees every machine: only for the cleaner, when no run can be in flight. */
        @Override public void run() {
            closed = true;
            freeIdle();
            JvmMachine o = owned;
            if (o != null) o.free();
        }

        private void freeIdle() {
            for (JvmMachine m; (m = spare.getAndSet(null)) != null || (m = idle.poll()) != null; ) m.free();
        }
    }
}
