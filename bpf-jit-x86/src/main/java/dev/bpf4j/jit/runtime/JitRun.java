package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.AccessDescriptor;
import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.Map;

/**
 * One run of a JIT program as Java sees it: what helpers get as their {@link HelperCall}, and how
 * the run's outcome is read back from the env block. The current run of a thread is found through
 * a thread-local (the helper bridge closure receives only registers).
 */
final class JitRun implements HelperCall {
    private static final ThreadLocal<JitRun> CURRENT = new ThreadLocal<>();

    private final Object owner;
    private JitRun previous;
    private final String programName;
    private final Map<Integer, HelperSpec> helpers;
    private final EnvBlock env;
    private final RunContext context;
    private Throwable failure;
    /** False once the run has returned: its env block may already serve another run. */
    private boolean active = true;
    private int failedHelper;

    JitRun(Object owner, String programName, Map<Integer, HelperSpec> helpers, EnvBlock env, RunContext context) {
        this.owner = owner;
        this.programName = programName;
        this.helpers = helpers;
        this.env = env;
        this.context = context;
    }

    static JitRun current() { return CURRENT.get(); }

    /** Makes this the thread's current run; returns the one to restore afterwards (nested runs). */
    JitRun enter() {
        previous = CURRENT.get();
        CURRENT.set(this);
        return previous;
    }

    /** True when a run of {@code owner} is in progress on this thread (possibly under nested runs). */
    static boolean isRunningOnThisThread(Object owner) {
        for (JitRun r = CURRENT.get(); r != null; r = r.previous) if (r.owner == owner) return true;
        return false;
    }

    /** Ends this run's use of its env block. */
    void deactivate() { active = false; }

    private void checkActive() {
        if (!active) throw new IllegalStateException("the run of '" + programName + "' this HelperCall belonged to has ended");
    }

    static void restore(JitRun previous) {
        // set(null), never remove(): removing makes the next run's get() create a fresh map entry
        // and sweep stale slots, which cost ~0.5 µs per run.
        CURRENT.set(previous);
    }

    /** Called by the bridge closure for {@code call id}. */
    long callHelper(int id, long r1, long r2, long r3, long r4, long r5) {
        try {
            HelperSpec spec = helpers.get(id);
            if (spec == null) throw new IllegalStateException("helper " + id + " is not bound");
            return spec.body().call(this, r1, r2, r3, r4, r5);
        } catch (Throwable t) {
            failure = t;
            failedHelper = id;
            env.set(EnvLayout.STATUS, EnvLayout.STATUS_HELPER_ERROR);
            return 0;
        }
    }

    /** The run's result once the native code has returned {@code r0}. */
    long finish(long r0) {
        long status = env.get(EnvLayout.STATUS);
        if (status == 0) return r0;
        if (status == EnvLayout.STATUS_EXIT) return env.get(EnvLayout.EXIT_R0);
        if (status == EnvLayout.STATUS_HELPER_ERROR) throw helperFailure();
        long kind = env.get(EnvLayout.ERR_KIND);
        long desc = env.get(EnvLayout.ERR_DESC);
        if (kind == EnvLayout.KIND_OUT_OF_BOUNDS) {
            throw BpfRuntimeException.outOfBounds(programName, AccessDescriptor.pc(desc), env.get(EnvLayout.ERR_ADDR),
                    AccessDescriptor.size(desc), AccessDescriptor.write(desc));
        }
        if (kind == EnvLayout.KIND_MISALIGNED_ATOMIC) {
            throw BpfRuntimeException.misalignedAtomic(programName, AccessDescriptor.pc(desc), env.get(EnvLayout.ERR_ADDR),
                    AccessDescriptor.size(desc));
        }
        if (kind == EnvLayout.KIND_BUDGET) throw BpfRuntimeException.budgetExceeded(programName, (int) desc, context.budget());
        if (kind == EnvLayout.KIND_CALL_DEPTH) throw BpfRuntimeException.callDepthExceeded(programName, (int) desc, Limits.MAX_CALL_FRAMES);
        throw new IllegalStateException("JIT run of '" + programName + "' ended with unknown status " + status + "/" + kind);
    }

    /** As the interpreter: BpfRuntimeException as is, Errors propagate, anything else becomes HELPER_FAILED. */
    private RuntimeException helperFailure() {
        Throwable t = failure;
        if (t instanceof BpfRuntimeException) return (BpfRuntimeException) t;
        if (t instanceof Error) throw (Error) t;
        HelperSpec spec = helpers.get(failedHelper);
        String name = spec == null ? "?" : spec.name();
        BpfRuntimeException e = new BpfRuntimeException(ErrorKind.HELPER_FAILED, programName, pc(), 0,
                "helper " + name + " (id " + failedHelper + ") threw " + t);
        e.initCause(t);
        return e;
    }

    @Override public String programName() { return programName; }

    @Override public int pc() {
        checkActive();
        return (int) env.get(EnvLayout.CUR_PC);
    }

    @Override public RunContext runContext() {
        checkActive();
        return context;
    }

    @Override public void exit(long r0) {
        checkActive();
        env.set(EnvLayout.EXIT_R0, r0);
        env.set(EnvLayout.STATUS, EnvLayout.STATUS_EXIT);
    }

    /** The memory-check rule: inside one region (writable for writes) or one live BPF frame. */
    @Override public boolean accessible(long address, long size, boolean write) {
        checkActive();
        if (size <= 0) return false;
        long end = address + size;
        if (Long.compareUnsigned(end, address) <= 0) return false;
        for (MemoryRegion r : context.regions()) {
            if ((!write || r.writable()) && Long.compareUnsigned(address, r.start()) >= 0
                    && Long.compareUnsigned(end, r.end()) <= 0) {
                return true;
            }
        }
        long entry = env.get(EnvLayout.ENTRY_RBP);
        long rbp = env.get(EnvLayout.CUR_RBP);
        for (int depth = 0; depth < Limits.MAX_CALL_FRAMES && rbp != 0; depth++) {
            if (Long.compareUnsigned(address, rbp - Limits.STACK_SIZE) >= 0 && Long.compareUnsigned(end, rbp) <= 0) return true;
            if (rbp == entry) break;
            rbp = NativeMemory.getLong(rbp);
        }
        return false;
    }
}
