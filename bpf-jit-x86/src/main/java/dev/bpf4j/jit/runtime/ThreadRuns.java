package dev.bpf4j.jit.runtime;

import dev.bpf4j.runtime.RunContext;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * What one thread keeps between JIT runs, per nesting level (a helper that starts another run opens
 * the next level): a hazard slot holding the id of the program whose code the level's run is inside,
 * and the level's env block (with its reusable {@link JitRun}). The innermost level's run is the
 * thread's current run, which the helper bridge looks up. One thread-local lookup per run serves
 * all of it. {@link JitExecutable#close} reads the slots of every thread ({@link RunRegistry}) and
 * waits until none holds the program.
 */
final class ThreadRuns {
    private static final ThreadLocal<ThreadRuns> STATE = ThreadLocal.withInitial(ThreadRuns::create);
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * Hazard slots (program ids, 0 = none), [0, depth) in use. Primitives: publishing one pays no GC
     * barrier. Replaced (never shrunk) when runs nest deeper: volatile so that a closer scanning
     * after the barrier reads the array the slots are written to.
     */
    private volatile long[] slots = new long[4];
    /** The env block of each level, made when the level is first used and kept for the thread's life. */
    private EnvBlock[] blocks = new EnvBlock[4];
    private int depth;

    private ThreadRuns() {}

    private static ThreadRuns create() {
        ThreadRuns t = new ThreadRuns();
        RunRegistry.add(t);
        return t;
    }

    static ThreadRuns get() { return STATE.get(); }

    /** The nesting level the next run on this thread takes. */
    int depth() { return depth; }

    /**
     * Announces that this thread is about to run the code of the program {@code id} at level
     * {@code d} ({@link #depth()}); {@link #retract} ends it. The caller then reads the program's
     * {@code closed} flag: the slot store and that load must not be reordered. With
     * {@link Membarrier} the opaque store suffices (C2 keeps opaque accesses in program order —
     * MemBarCPUOrder on both sides — and the closer's membarrier stands in for the CPU's store→load
     * fence); without it, a full fence.
     */
    void publish(int d, long id) {
        long[] s = slots;
        if (d == s.length) {
            blocks = Arrays.copyOf(blocks, d * 2);
            s = Arrays.copyOf(s, d * 2);
            slots = s;
        }
        SLOT.setOpaque(s, d, id);
        depth = d + 1;
        if (!Membarrier.AVAILABLE) VarHandle.fullFence();
    }

    /** The run at level {@code d} left the program's code (or never entered it). */
    void retract(int d) {
        long[] s = slots;
        if (d < s.length) SLOT.setRelease(s, d, 0L); // else publish stopped before growing the slots
        depth = d;
    }

    /** True when one of this thread's slots holds program {@code id} (read by a closing thread). */
    boolean holds(long id) {
        long[] s = slots;
        for (int i = 0; i < s.length; i++) if ((long) SLOT.getOpaque(s, i) == id) return true;
        return false;
    }

    /** The env block of level {@code d}, with room for the regions of {@code ctx}. */
    EnvBlock block(int d, RunContext ctx) {
        EnvBlock b = blocks[d];
        if (b == null || !b.bound(ctx.regions()) && b.capacity() < ctx.regions().size()) {
            if (b != null) b.free();
            b = EnvBlock.allocate(ctx.regions().size());
            blocks[d] = b;
        }
        return b;
    }

    /** The innermost run in progress on this thread, or null. */
    JitRun current() {
        int d = depth;
        EnvBlock b = d == 0 ? null : blocks[d - 1];
        return b == null ? null : b.run();
    }

    /** True when a run in progress on this thread runs {@code program} (see {@link JitRun#runs}). */
    boolean anyRuns(Object program) {
        for (int d = 0; d < depth; d++) {
            if (blocks[d] != null && blocks[d].run().runs(program)) return true;
        }
        return false;
    }
}
