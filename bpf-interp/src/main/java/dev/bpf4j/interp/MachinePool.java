package dev.bpf4j.interp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The machines of one executable. The first thread to run the executable becomes the owner of
 * one machine, which it borrows and gives back with plain field accesses: an atomic operation
 * costs more than a whole empty run on some hosts, and most executables are run by one thread.
 * Every other run (other threads, or the owner re-entering from a helper) borrows a shared
 * machine: a one-machine slot, then a queue, creating one when none is idle.
 *
 * <p>{@link #close()} frees the idle shared machines at once and the others when they come back.
 * The owned machine is freed by close only when the closing thread is its owner or the owner has
 * terminated; otherwise by the owner's next run or give-back, or by {@link #run()}, which a
 * {@link java.lang.ref.Cleaner} calls once the executable is unreachable (no run can be in flight
 * then: {@code InterpretedExecutable.run} keeps the executable reachable until it returns).
 */
final class MachinePool implements Runnable {
    private static final VarHandle OWNED;
    static {
        try {
            OWNED = MethodHandles.lookup().findVarHandle(MachinePool.class, "owned", Machine.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final DecodedProgram program;
    /** The owner thread's machine, null until a first run claims it. */
    private volatile Machine owned;
    private final AtomicReference<Machine> slot = new AtomicReference<>();
    private final ConcurrentLinkedQueue<Machine> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    MachinePool(DecodedProgram program) { this.program = program; }

    Machine borrow() {
        Machine o = owned;
        if (o != null) {
            if (o.owner == Thread.currentThread() && !o.busy) {
                o.busy = true;
                return o;
            }
        } else {
            Machine mine = new Machine(program, Thread.currentThread());
            if (OWNED.compareAndSet(this, null, mine)) {
                mine.busy = true;
                return mine;
            }
            mine.free(); // another thread claimed it first
        }
        Machine m = slot.getAndSet(null);
        if (m == null) m = idle.poll();
        return m != null ? m : new Machine(program, null);
    }

    void giveBack(Machine m) {
        if (m.owner != null) { // only its owner gets here with it
            m.busy = false;
            if (closed) m.free();
            return;
        }
        if (!slot.compareAndSet(null, m)) idle.offer(m);
        if (closed) freeIdle(); // closed while this run was in flight
    }

    boolean isClosed() { return closed; }

    /** Closes the pool: see the class comment for which machines are freed when. */
    void close() {
        closed = true;
        freeIdle();
        Machine o = owned;
        if (o == null) return;
        if (o.owner == Thread.currentThread() ? !o.busy : !o.owner.isAlive()) o.free();
    }

    /** Frees every machine: only for the cleaner, when no run can be in flight. */
    @Override public void run() {
        closed = true;
        freeIdle();
        Machine o = owned;
        if (o != null) o.free();
    }

    private void freeIdle() {
        Machine s = slot.getAndSet(null);
        if (s != null) s.free();
        for (Machine m; (m = idle.poll()) != null; ) m.free();
    }
}
