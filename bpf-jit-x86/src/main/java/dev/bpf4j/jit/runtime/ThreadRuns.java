package dev.bpf4j.jit.runtime;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RunContext;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;

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
    private static final VarHandle SLOT0;
    static {
        try {
            SLOT0 = MethodHandles.lookup().findVarHandle(ThreadRuns.class, "slot0", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Hazard slots (program ids, never 0; 0 = none): level 0's in a field of its own, the level
     * almost every run takes (one load and one store on this object, no array to reach and bound),
     * the nested levels' in {@link #slots} at their level's index. The levels in use are a prefix:
     * a run's slot holds its id from publish to retract and nested runs start and end inside it, so
     * the first empty slot is the next level ({@link #depth}), with no depth counter to store twice
     * per run (on the shared test machines each store before the call into native code cost about
     * 0.5 ns). Primitives: publishing one pays no GC barrier.
     */
    private long slot0;
    /**
     * Slots of levels 1 and up (index 0 unused). Replaced (never shrunk) when runs nest deeper:
     * volatile so that a closer scanning after the barrier reads the array the slots are written to.
     */
    private volatile long[] slots = new long[4];
    /** The env blocks of level 0 and of the nested levels (index 1 up), made when a level is first used and kept for the thread's life. */
    private EnvBlock block0;
    private EnvBlock[] blocks = new EnvBlock[4];
    /** The thread this state belongs to: lets a caller cache it and check it with {@link #isCurrent}. */
    private final Thread thread;

    private ThreadRuns(Thread thread) { this.thread = thread; }

    private static ThreadRuns create() {
        ThreadRuns t = new ThreadRuns(Thread.currentThread());
        RunRegistry.add(t);
        return t;
    }

    static ThreadRuns get() { return STATE.get(); }

    /**
     * True when this is the calling thread's state (what {@link #get} would return): a cached
     * reference to it can then stand in for the thread-local lookup. {@code thread} is final, so a
     * reference read from a racy cache sees it set.
     */
    boolean isCurrent() { return thread == Thread.currentThread(); }

    /** The nesting level the next run on this thread takes: its first empty slot (its own writes, plain reads). */
    int depth() {
        if (slot0 == 0) return 0;
        long[] s = slots;
        int d = 1;
        while (d < s.length && s[d] != 0) d++;
        return d;
    }

    /**
     * Announces that this thread is about to run the code of the program {@code id} at level
     * {@code d} ({@link #depth()}); {@link #retract} ends it. The caller then reads the program's
     * {@code closed} flag: the slot store and that load must not be reordered. With
     * {@link Membarrier} the opaque store suffices (C2 keeps opaque accesses in program order —
     * MemBarCPUOrder on both sides — and the closer's membarrier stands in for the CPU's store→load
     * fence); without it, a full fence.
     */
    void publish(int d, long id) {
        if (d == 0) {
            SLOT0.setOpaque(this, id);
        } else {
            long[] s = slots;
            if (d == s.length) {
                blocks = Arrays.copyOf(blocks, d * 2);
                s = Arrays.copyOf(s, d * 2);
                slots = s;
            }
            SLOT.setOpaque(s, d, id);
        }
        if (!Membarrier.AVAILABLE) VarHandle.fullFence();
    }

    /** The run at level {@code d} left the program's code (or never entered it). */
    void retract(int d) {
        if (d == 0) {
            SLOT0.setRelease(this, 0L);
            return;
        }
        long[] s = slots;
        if (d < s.length) SLOT.setRelease(s, d, 0L); // else publish stopped before growing the slots
    }

    /** True when one of this thread's slots holds program {@code id} (read by a closing thread). */
    boolean holds(long id) {
        if ((long) SLOT0.getOpaque(this) == id) return true;
        long[] s = slots;
        for (int i = 1; i < s.length; i++) if ((long) SLOT.getOpaque(s, i) == id) return true;
        return false;
    }

    /** The env block of level {@code d}, its region table holding the regions of {@code ctx}. */
    EnvBlock block(int d, RunContext ctx) {
        EnvBlock b = blockAt(d);
        List<MemoryRegion> regions = ctx.regions();
        if (b != null && b.bound(regions)) return b; // the common case: the same regions as last time
        if (b == null || b.capacity() < regions.size()) {
            if (b != null) b.free();
            b = EnvBlock.allocate(regions.size());
            if (d == 0) block0 = b;
            else blocks[d] = b;
        }
        b.bind(regions);
        return b;
    }

    private EnvBlock blockAt(int d) { return d == 0 ? block0 : blocks[d]; }

    /** The innermost run in progress on this thread, or null. */
    JitRun current() {
        int d = depth();
        EnvBlock b = d == 0 ? null : blockAt(d - 1);
        return b == null ? null : b.run();
    }

    /** True when a run in progress on this thread runs {@code program} (see {@link JitRun#runs}). */
    boolean anyRuns(Object program) {
        for (int d = 0, n = depth(); d < n; d++) {
            EnvBlock b = blockAt(d);
            if (b != null && b.run().runs(program)) return true;
        }
        return false;
    }
}
