package dev.bpf4j.jit.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * What one thread keeps between JIT runs: its current run (the helper bridge finds it here), a
 * small pool of env blocks, and its hazard slots — the programs whose code its runs are inside, one
 * per nesting level (a helper that starts another run opens a second level). One thread-local
 * lookup per run serves all three. {@link JitExecutable#close} reads the slots of every thread
 * ({@link RunRegistry}) and waits until none holds the program.
 */
final class ThreadRuns {
    private static final ThreadLocal<ThreadRuns> STATE = ThreadLocal.withInitial(ThreadRuns::create);
    private static final int POOLED = 4;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(JitExecutable[].class);

    /** The innermost run in progress on this thread (runs nest when a helper starts another run). */
    JitRun current;
    private final EnvBlock[] pool = new EnvBlock[POOLED];
    private int pooled;
    /**
     * Hazard slots, [0, depth) in use. Replaced (never shrunk) when runs nest deeper: volatile so
     * that a closer scanning after the barrier sees the array the slots are written to.
     */
    private volatile JitExecutable[] slots = new JitExecutable[4];
    private int depth;

    private ThreadRuns() {}

    private static ThreadRuns create() {
        ThreadRuns t = new ThreadRuns();
        RunRegistry.add(t);
        return t;
    }

    static ThreadRuns get() { return STATE.get(); }

    /**
     * Announces that this thread is about to run {@code program}'s code; returns the slot to
     * {@link #retract}. The caller then reads the program's {@code closed} flag: the slot store and
     * that load must not be reordered. With {@link Membarrier} the opaque store suffices (C2 keeps
     * opaque accesses in program order — MemBarCPUOrder on both sides — and the closer's membarrier
     * stands in for the CPU fence); without it, a full fence.
     */
    int publish(JitExecutable program) {
        int d = depth;
        JitExecutable[] s = slots;
        if (d == s.length) {
            s = Arrays.copyOf(s, d * 2);
            slots = s;
        }
        SLOT.setOpaque(s, d, program);
        depth = d + 1;
        if (!Membarrier.AVAILABLE) VarHandle.fullFence();
        return d;
    }

    /** The run in slot {@code d} left the program's code (or never entered it). */
    void retract(int d) {
        SLOT.setRelease(slots, d, (JitExecutable) null);
        depth = d;
    }

    /** True when one of this thread's slots holds {@code program} (read by a closing thread). */
    boolean holds(JitExecutable program) {
        JitExecutable[] s = slots;
        for (int i = 0; i < s.length; i++) if (SLOT.getOpaque(s, i) == program) return true;
        return false;
    }

    /** A block with room for {@code regions} regions; a helper that starts a nested run takes a second one. */
    EnvBlock acquire(int regions) {
        if (pooled > 0) {
            EnvBlock b = pool[--pooled];
            pool[pooled] = null;
            if (b.capacity() >= regions) return b;
            b.free();
        }
        return EnvBlock.allocate(regions);
    }

    void release(EnvBlock b) {
        if (pooled < POOLED) pool[pooled++] = b;
        else b.free();
    }
}
