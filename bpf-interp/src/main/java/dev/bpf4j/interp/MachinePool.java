package dev.bpf4j.interp;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Idle machines of one executable. Each run borrows one (creating it when none is idle) and gives
 * it back; {@link #run()} frees the idle ones' off-heap stacks — called by close, and by a
 * {@link java.lang.ref.Cleaner} when an executable is dropped without being closed.
 */
final class MachinePool implements Runnable {
    private final DecodedProgram program;
    private final ConcurrentLinkedQueue<Machine> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    MachinePool(DecodedProgram program) { this.program = program; }

    Machine borrow() {
        Machine m = idle.poll();
        return m != null ? m : new Machine(program);
    }

    void giveBack(Machine m) {
        idle.offer(m);
        if (closed) freeIdle(); // closed while this run was in flight
    }

    boolean isClosed() { return closed; }

    /** Closes the pool: frees every idle machine now and every borrowed one when it comes back. */
    @Override public void run() {
        closed = true;
        freeIdle();
    }

    private void freeIdle() {
        for (Machine m; (m = idle.poll()) != null; ) m.free();
    }
}
