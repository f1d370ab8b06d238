package dev.bpf4j.interp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Idle machines of one executable. Each run borrows one (creating it when none is idle) and gives
 * it back. A one-machine slot serves the common single-threaded case without allocating (a queue
 * node per offer would); the queue holds the rest. {@link #run()} frees the idle ones' off-heap stacks — called by close, and by a
 * {@link java.lang.ref.Cleaner} when an executable is dropped without being closed.
 */
final class MachinePool implements Runnable {
    private final DecodedProgram program;
    private final AtomicReference<Machine> slot = new AtomicReference<>();
    private final ConcurrentLinkedQueue<Machine> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    MachinePool(DecodedProgram program) { this.program = program; }

    Machine borrow() {
        Machine m = slot.getAndSet(null);
        if (m == null) m = idle.poll();
        return m != null ? m : new Machine(program);
    }

    void giveBack(Machine m) {
        if (!slot.compareAndSet(null, m)) idle.offer(m);
        if (closed) freeIdle(); // closed while this run was in flight
    }

    boolean isClosed() { return closed; }

    /** Closes the pool: frees every idle machine now and every borrowed one when it comes back. */
    @Override public void run() {
        closed = true;
        freeIdle();
    }

    private void freeIdle() {
        Machine s = slot.getAndSet(null);
        if (s != null) s.free();
        for (Machine m; (m = idle.poll()) != null; ) m.free();
    }
}
