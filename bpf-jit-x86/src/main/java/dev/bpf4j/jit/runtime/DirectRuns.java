package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs of JIT code that native code started itself, with an env block it built from a template
 * (a probe trampoline): no Java {@link JitExecutable#run} set the thread's current run, so the
 * helper bridge finds such a run from its block, whose {@link EnvLayout#OWNER} word names the
 * {@link Owner} registered here. Each Java helper call of such a run gets a {@link JitRun} over the
 * foreign block for the call's duration (a callback's helpers share it), so views of it fail once
 * the call is over; a helper failure is handed to the owner at once (native code only sees the
 * status word). Java helpers of a direct run need a thread's scratch area, one per nesting level.
 */
public final class DirectRuns {
    /** What the bridge needs to serve the Java helpers of one attached program. */
    public interface Owner {
        JitExecutable program();

        /**
         * The run's context for the block at {@code env}: built when a helper of the run first asks
         * for it during a call (the block holds the hit's state).
         */
        RunContext context(long env);

        /** The run at {@code env} ends with {@code failure} (already the engine's exception); must not throw. */
        void failed(Throwable failure);

        /** A hit that began inside a Java helper of another direct run on this thread was cut short. */
        void missed();
    }

    private static final Map<Long, Owner> OWNERS = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong(1);
    private static final Cleaner CLEANER = Cleaner.create();
    private static final ThreadLocal<Nesting> THREAD = ThreadLocal.withInitial(Nesting::new);

    private DirectRuns() {}

    /**
     * The id to store in the template's {@link EnvLayout#OWNER} word. Owners stay registered for the
     * life of the process, as the code that may carry their id (retired trampolines) stays mapped.
     */
    public static long register(Owner owner) {
        long id = IDS.getAndIncrement();
        OWNERS.put(id, owner);
        return id;
    }

    /** True while this thread is inside a Java helper of a direct run (a probe's upcall then skips its hit). */
    public static boolean inHelper() { return THREAD.get().depth > 0; }

    /** The helper bridge's path for a block whose OWNER word is {@code ownerId}. Never throws. */
    static long call(long env, long ownerId, long id, long r1, long r2, long r3, long r4, long r5) {
        Owner owner = OWNERS.get(ownerId);
        if (owner == null) return endQuietly(env);          // not an id register gave: end the run
        Nesting t = THREAD.get();
        int level = t.depth;
        JitRun run;
        boolean outermost;
        if (level > 0 && t.envs[level - 1] == env) {         // a helper inside a callback of the same run
            run = t.runs[level - 1];
            outermost = false;
        } else if (level > 0) {                              // a hit inside another run's Java helper: the kernel's recursion check
            owner.missed();
            return endQuietly(env);
        } else {
            if (NativeMemory.getLong(env + EnvLayout.SCRATCH_BASE) == 0) {
                NativeMemory.putLong(env + EnvLayout.SCRATCH_BASE, t.scratch());
            }
            run = EnvBlock.view(env).run();
            run.beginDirect(owner.program(), owner);
            outermost = true;
        }
        t.push(env, run);
        try {
            long r0 = run.callHelper(id, r1, r2, r3, r4, r5);
            if (NativeMemory.getLong(env + EnvLayout.STATUS) == EnvLayout.STATUS_HELPER_ERROR) owner.failed(run.failureForCaller());
            return r0;
        } catch (Throwable e) { // callHelper records a helper's failures; this guards the path itself
            NativeMemory.putLong(env + EnvLayout.STATUS, EnvLayout.STATUS_HELPER_ERROR);
            owner.failed(e);
            return 0;
        } finally {
            t.pop();
            if (outermost) run.deactivate();
        }
    }

    private static long endQuietly(long env) {
        NativeMemory.putLong(env + EnvLayout.EXIT_R0, 0);
        NativeMemory.putLong(env + EnvLayout.STATUS, EnvLayout.STATUS_EXIT);
        return 0;
    }

    /** One thread's Java helper calls of direct runs in progress, innermost last, and its scratch area. */
    private static final class Nesting {
        long[] envs = new long[4];
        JitRun[] runs = new JitRun[4];
        int depth;
        private long scratch;

        /**
         * The area for the outermost run's helper buffers: runs nested inside a helper are cut short
         * (see {@link #call}), so only one run per thread has live buffers at a time.
         */
        long scratch() {
            if (scratch == 0) {
                long a = NativeMemory.allocate((long) Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES);
                scratch = a;
                CLEANER.register(this, () -> NativeMemory.free(a));
            }
            return scratch;
        }

        void push(long env, JitRun run) {
            if (depth == envs.length) {
                envs = Arrays.copyOf(envs, depth * 2);
                runs = Arrays.copyOf(runs, depth * 2);
            }
            envs[depth] = env;
            runs[depth++] = run;
        }

        void pop() { runs[--depth] = null; }
    }
}
