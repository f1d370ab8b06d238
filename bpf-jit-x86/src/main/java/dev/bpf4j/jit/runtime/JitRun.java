package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.compiler.AccessDescriptor;
import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.CallbackExit;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.RunRules;
import dev.bpf4j.runtime.RunScopedHelperCall;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.InsnAux;

/**
 * One run of a JIT program as Java sees it: what helpers get as their {@link HelperCall} (through a
 * {@link RunScopedHelperCall} view, made for each helper call), and how the run's outcome is
 * read back from the env block. The current run of a thread is found through a thread-local (the
 * helper bridge closure receives only registers). One JitRun belongs to each env block and serves
 * its runs one after the other: a run without helper calls allocates nothing.
 */
final class JitRun implements RunScopedHelperCall.Run {
    /**
     * The loaded program and the running one (the last tail call's target). Like {@link #context},
     * kept after the run until the next run of this block: a run of the same program with the same
     * context then stores no reference (each reference store pays the GC's card-marking barrier).
     */
    private JitExecutable owner;
    private JitExecutable running;
    private final EnvBlock env;
    private RunContext context;
    /** Builds {@link #context} on first use (a direct run: most helpers never ask for it); null once built. */
    private DirectRuns.Owner contextOwner;
    /** Moves on after each run that made a {@link #view}: a helper's view of an earlier run fails its checks. */
    private int generation;
    /**
     * Whether this run handed out a view. A flag, not the view: storing a fresh object into this
     * long-lived one would pay G1's card-marking barrier (a fence, here) on every run that calls a
     * helper, and an unstored view the helper does not keep may not be allocated at all.
     */
    private boolean viewMade;
    private Throwable failure;
    private int failedHelper;
    /** Created by the first tail call: most runs make none, and the entry path allocates only this run. */
    private TailCalls tailCalls;
    /** True once the main frame is zero wherever no program wrote (after the first tail call). */
    private boolean frameDefined;
    /**
     * Set whenever one of the rare-path fields above (contextOwner, viewMade, failure, tailCalls) is
     * set: a run that set none ends with one test in {@link #deactivate}.
     */
    private boolean rare;

    JitRun(EnvBlock env) { this.env = env; }

    /** Starts a run of {@code owner} on this object (its env block is prepared). */
    void begin(JitExecutable owner, RunContext context) {
        if (this.owner != owner) {
            this.owner = owner;
            running = owner; // else already: only a tail call changes it, and deactivate resets it then
        }
        if (this.context != context) this.context = context;
        // contextOwner, failure, tailCalls, frameDefined and viewMade are reset by deactivate, which
        // also moves the generation on when this run handed out a view (no other run's view can name it)

    }

    /** As {@link #begin}, for a run native code started at {@code env}: its context is built when first asked for. */
    void beginDirect(JitExecutable owner, DirectRuns.Owner contextOwner) {
        begin(owner, null);
        this.contextOwner = contextOwner;
        rare = true;
    }

    private RunContext context() {
        if (contextOwner != null) {
            context = contextOwner.context(env.address());
            contextOwner = null;
        }
        return context;
    }

    /** What helpers of this run receive; a view kept past the run fails its checks. */
    private HelperCall view() {
        if (!viewMade) {
            viewMade = true;
            rare = true;
        }
        return new RunScopedHelperCall(this, generation, programName());
    }

    /**
     * False once the view of {@code runGeneration} outlived its run: a run that made a view moves
     * the generation on as it ends, so no later run (and no ended one) matches. The view is the
     * only way helpers reach this run, so this is the one check.
     */
    @Override public boolean isCurrentRun(int runGeneration) { return runGeneration == generation; }

    /** The innermost Java run in progress on this thread, or null. */
    static JitRun current() { return ThreadRuns.get().current(); }

    /**
     * True when {@code program} is this run's loaded program or one it tail-called into. Asked only
     * of levels in use ({@link ThreadRuns#anyRuns}), whose runs have begun and not yet ended: no
     * code runs on the thread between publish and begin or between deactivate and retract.
     */
    boolean runs(Object program) {
        return owner == program || tailCalls != null && tailCalls.pinned(program);
    }

    /** True when a run of {@code owner} is in progress on this thread (possibly under nested runs). */
    static boolean isRunningOnThisThread(Object owner) { return ThreadRuns.get().anyRuns(owner); }

    /** Ends this run's use of its env block (the program and context stay referenced: see {@link #owner}). */
    void deactivate() {
        if (!rare) return;
        rare = false;
        if (tailCalls != null) {
            tailCalls.unpinAll();
            tailCalls = null;
            frameDefined = false;
            running = owner;
        }
        if (viewMade) {
            viewMade = false;
            generation++;
        }
        if (contextOwner != null) contextOwner = null;
        if (failure != null) failure = null;
    }


    /** Called by the bridge closure for {@code call id}, and for callx with the register's value as {@code id}. */
    long callHelper(long id, long r1, long r2, long r3, long r4, long r5) {
        long depth = env.get(EnvLayout.DEPTH);
        try {
            HelperSpec spec = id == (int) id ? running.javaHelper((int) id) : null;
            if (spec == null) throw unboundHelper(id);
            InsnAux aux = running.aux();
            int unset = aux == null || !aux.anyUnsetArgs() ? 0 : aux.unsetArgs(pc());
            // a dead register holds what each engine left there (rdx here): never-set arguments are 0 on every engine
            long r0 = unset == 0 ? spec.body().call(view(), r1, r2, r3, r4, r5)
                    : spec.body().call(view(), arg(unset, 1, r1), arg(unset, 2, r2), arg(unset, 3, r3), arg(unset, 4, r4), arg(unset, 5, r5));
            JitExecutable next = tailCalls == null ? null : tailCalls.takePending();
            if (next != null && env.get(EnvLayout.STATUS) == 0) enterTailCall(next, r1, r2, r3, r4, r5);
            return r0;
        } catch (CallbackExit exited) { // a helper inside a callback ended the run: STATUS_EXIT stays
            return 0;
        } catch (Throwable t) {
            failure = t;
            rare = true;
            failedHelper = (int) id;
            env.set(EnvLayout.STATUS, EnvLayout.STATUS_HELPER_ERROR);
            return 0;
        } finally {
            long live = env.get(EnvLayout.SCRATCH_LIVE);
            if (live != 0) env.set(EnvLayout.SCRATCH_LIVE, live & ~(1L << depth)); // the call's buffer dies with it
        }
    }

    private static long arg(int unset, int r, long value) { return (unset & (1 << r)) != 0 ? 0 : value; }

    /** callx whose register names no helper of the load: as the interpreter reports it. */
    private RuntimeException unboundHelper(long id) {
        int pc = pc();
        Insn at = running.program().insn(pc);
        if (at.opcode() == (Opcodes.JMP | Opcodes.CALL | Opcodes.X)) return BpfRuntimeException.unknownHelper(programName(), pc, at.dst(), id);
        return new IllegalStateException("helper " + id + " is not bound");
    }

    /**
     * The helper asked for a tail call and returned: the native code sees STATUS_TAIL_CALL and jumps
     * to the target's tail-call entry with the call's r1-r5 (the interpreter's registers are
     * untouched by a helper call, so the target starts with the same r1-r5).
     */
    private void enterTailCall(JitExecutable next, long r1, long r2, long r3, long r4, long r5) {
        if (!frameDefined) {
            frameDefined = true;
            // First tail call of the run: the loaded program's prologue zeroed only what it touches
            RunRules.defineMainFrame(env.get(EnvLayout.ENTRY_RBP), running.mainZeroed());
        }
        long[] args = {r1, r2, r3, r4, r5};
        for (int i = 0; i < 5; i++) env.set(EnvLayout.ARGS + 8 * i, args[i]);
        // A Java run wrote its packet only if the loaded program reads it (a direct run's block always has it).
        if (next.readsPacket() && contextOwner == null && context != null) env.setPacket(context);
        env.set(EnvLayout.TAIL_TARGET, next.tailCallAddress());
        env.set(EnvLayout.STATUS, EnvLayout.STATUS_TAIL_CALL);
        running = next;
    }

    /**
     * The run's result once the native code has returned {@code r0}. A run of code that cannot call
     * Java is not begun (nothing reads the program or context while it runs): an error begins it
     * here, so that the exception names the program and its budget.
     */
    long finish(long r0, JitExecutable owner, RunContext context) {
        long status = env.get(EnvLayout.STATUS);
        if (status == 0) return r0;
        begin(owner, context); // a no-op for a run that began (a tail call's target stays the running program)
        env.resetAfterRun();
        if (status == EnvLayout.STATUS_EXIT) return env.get(EnvLayout.EXIT_R0);
        if (status == EnvLayout.STATUS_HELPER_ERROR) throw helperFailure();
        if (status == EnvLayout.STATUS_NO_JAVA) {
            throw new IllegalStateException("JIT run of '" + programName() + "' pc " + env.get(EnvLayout.CUR_PC)
                    + ": a Java helper was called on a thread that may not run Java (inside the VM, in a JNI critical region,"
                    + " or with an exception pending; docs/native-probes.md)");
        }
        throw nativeError(status);
    }

    /** The error the native code recorded (STATUS_NATIVE_ERROR). */
    private RuntimeException nativeError(long status) {
        long kind = env.get(EnvLayout.ERR_KIND);
        long desc = env.get(EnvLayout.ERR_DESC);
        if (kind == EnvLayout.KIND_OUT_OF_BOUNDS) {
            return BpfRuntimeException.outOfBounds(programName(), AccessDescriptor.pc(desc), env.get(EnvLayout.ERR_ADDR),
                    AccessDescriptor.size(desc), AccessDescriptor.write(desc));
        }
        if (kind == EnvLayout.KIND_MISALIGNED_ATOMIC) {
            return BpfRuntimeException.misalignedAtomic(programName(), AccessDescriptor.pc(desc), env.get(EnvLayout.ERR_ADDR),
                    AccessDescriptor.size(desc));
        }
        if (kind == EnvLayout.KIND_BUDGET) return BpfRuntimeException.budgetExceeded(programName(), (int) desc, context().budget());
        if (kind == EnvLayout.KIND_CALL_DEPTH) return BpfRuntimeException.callDepthExceeded(programName(), (int) desc, Limits.MAX_CALL_FRAMES);
        return new IllegalStateException("JIT run of '" + programName() + "' ended with unknown status " + status + "/" + kind);
    }

    /** The failure of a run whose caller is native code (a probe): as {@link #finish} would throw it, an Error as is. */
    Throwable failureForCaller() {
        return failure instanceof Error ? failure : helperFailure();
    }

    /** As the interpreter: BpfRuntimeException as is, Errors propagate, anything else becomes HELPER_FAILED. */
    private RuntimeException helperFailure() {
        Throwable t = failure;
        if (t == null) { // STATUS set by the JNI upcall's native code: the Java side never completed
            return helperFailed((int) env.get(EnvLayout.HELPER_ID), "did not return: an exception escaped its upcall into Java");
        }
        if (t instanceof BpfRuntimeException) return (BpfRuntimeException) t;
        if (t instanceof Error) throw (Error) t;
        BpfRuntimeException e = helperFailed(failedHelper, "threw " + t);
        e.initCause(t);
        return e;
    }

    /** HELPER_FAILED at the current pc: "helper NAME (id ID) WHAT". */
    private BpfRuntimeException helperFailed(int id, String what) {
        HelperSpec spec = running.javaHelper(id);
        return RunRules.helperFailed(programName(), pc(), spec == null ? "?" : spec.name(), id, what);
    }

    /** The running program's name: the loaded program's, or the last tail call target's. */
    @Override public String programName() { return running.program().name(); }

    @Override public int pc() {
        return (int) env.get(EnvLayout.CUR_PC);
    }

    @Override public RunContext runContext() {
        return context();
    }

    @Override public void exit(long r0) {
        env.set(EnvLayout.EXIT_R0, r0);
        env.set(EnvLayout.STATUS, EnvLayout.STATUS_EXIT);
    }

    /**
     * As the interpreter's: checks the handle, spends one budget unit, opens a frame (budget first,
     * then depth, both at this helper's pc), runs the function through the callback entry stub and
     * returns its r0. The nested native entry becomes the error exit's target for its duration; the
     * outer EXIT_RBP/EXIT_RSP, the helper's pc and frame and DEPTH are restored afterwards. An error
     * in the callback is thrown from here (through the helper), as the interpreter does.
     */
    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        JitExecutable p = running;
        RunRules.checkCallbackHandle(this, p.isCallbackHandle(handle), handle);
        int callPc = pc();
        long budget = env.get(EnvLayout.BUDGET);
        long depth = env.get(EnvLayout.DEPTH);
        RunRules.checkFrameOpen(programName(), callPc, budget, context().budget(), depth);
        env.set(EnvLayout.BUDGET, budget - 1);
        long exitRbp = env.get(EnvLayout.EXIT_RBP), exitRsp = env.get(EnvLayout.EXIT_RSP), curRbp = env.get(EnvLayout.CUR_RBP);
        long[] args = {r1, r2, r3, r4, r5};
        for (int i = 0; i < 5; i++) env.set(EnvLayout.ARGS + 8 * i, args[i]);
        env.set(EnvLayout.DEPTH, depth + 1);
        long r0;
        RuntimeException failure = null;
        try {
            r0 = JniEntry.call(p.callbackEntryAddress(), handle, env.address());
            long status = env.get(EnvLayout.STATUS);
            // built before CUR_PC is restored: errors name the pc inside the callback
            if (status == EnvLayout.STATUS_EXIT) failure = CallbackExit.INSTANCE;
            else if (status == EnvLayout.STATUS_HELPER_ERROR) failure = helperFailure();
            else if (status != 0) failure = nativeError(status);
        } finally {
            env.set(EnvLayout.EXIT_RBP, exitRbp);
            env.set(EnvLayout.EXIT_RSP, exitRsp);
            env.set(EnvLayout.CUR_RBP, curRbp);
            env.set(EnvLayout.CUR_PC, callPc);
            env.set(EnvLayout.DEPTH, depth);
        }
        if (failure != null) throw failure;
        return r0;
    }

    /** The buffer of the current frame depth, readable by the program until this helper returns. */
    @Override public long scratch(int size) {
        RunRules.checkScratchSize(this, size);
        long depth = env.get(EnvLayout.DEPTH);
        env.set(EnvLayout.SCRATCH_LIVE, env.get(EnvLayout.SCRATCH_LIVE) | (1L << depth));
        return env.get(EnvLayout.SCRATCH_BASE) + (depth - 1) * Limits.STACK_SIZE;
    }

    /** As the interpreter: main frame only, 33 per run (empty slots do not count), same-engine targets that are open. */
    @Override public boolean tailCall(Object target) {
        long depth = env.get(EnvLayout.DEPTH);
        if (tailCalls == null) {
            tailCalls = new TailCalls();
            rare = true;
        }
        if (!RunRules.mayTailCall(programName(), pc(), depth, tailCalls.made())) return false;
        JitExecutable slot = RunRules.tailCallTarget(programName(), pc(), target, JitExecutable.class, "jit");
        if (slot == null) return false; // an empty slot does not count, as in Linux's x86-64 JIT
        tailCalls.count();
        // The budget left (stored before every helper call) decides whether the target's code may skip counting it.
        JitExecutable next = slot.forBudget(env.get(EnvLayout.BUDGET));
        if (!tailCalls.pin(next)) throw RunRules.closedTailCallTarget(programName(), pc(), next.program().name());
        return true;
    }

    /**
     * A helper moved the packet: the env block's table (and its fast-path cache, which may lie on the
     * old bounds) holds {@code now} in place of {@code old} for the rest of the run; the next run
     * binds its own context's regions again, as the lists differ.
     */
    @Override public void replaceRegion(MemoryRegion old, MemoryRegion now) {
        if (env.boundRegions() == null) RunScopedHelperCall.Run.super.replaceRegion(old, now); // a probe's run: no packet to move
        env.bind(RunRules.replaceRegion(env.boundRegions(), old, now));
    }

    /** LD ABS/IND read the env block's packet words: the packet as the helper left it (the next run's prepare writes its own). */
    @Override public void packetDataMoved(long data, long length) {
        RunContext c = context();
        env.setPacket(data, length, c == null ? null : c.packetBuffer());
    }

    /** The memory-check rule: inside one region (writable for writes) or, when an argument of the call may be a stack pointer, one live BPF frame. */
    @Override public boolean accessible(long address, long size, boolean write) {
        return accessible(address, size, write, argTouchesFrames(0));
    }

    /** As above for memory of argument {@code argReg}: a frame only when the verifier typed that argument as a stack pointer. */
    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return accessible(address, size, write, argTouchesFrames(argReg));
    }

    /** The verifier's word on the helper call at hand (InsnAux); an unverified program's helpers may reach any live frame. */
    private boolean argTouchesFrames(int reg) {
        InsnAux aux = running.aux();
        if (aux == null) return true;
        int pc = pc();
        return reg == 0 ? aux.anyArgTouchesFrames(pc) : aux.argTouchesFrames(pc, reg);
    }

    private boolean accessible(long address, long size, boolean write, boolean frames) {
        if (size <= 0) return false;
        long end = address + size;
        if (Long.compareUnsigned(end, address) <= 0) return false;
        // the env block's table (a helper may have moved the packet); a direct run's view has none
        java.util.List<MemoryRegion> regions = env.boundRegions() != null ? env.boundRegions() : context().regions();
        for (MemoryRegion r : regions) {
            if ((!write || r.writable()) && Long.compareUnsigned(address, r.start()) >= 0
                    && Long.compareUnsigned(end, r.end()) <= 0) {
                return true;
            }
        }
        long entry = env.get(EnvLayout.ENTRY_RBP);
        long rbp = frames ? env.get(EnvLayout.CUR_RBP) : 0;
        for (int depth = 0; depth < Limits.MAX_CALL_FRAMES && rbp != 0; depth++) {
            if (Long.compareUnsigned(address, rbp - Limits.STACK_SIZE) >= 0 && Long.compareUnsigned(end, rbp) <= 0) return true;
            if (rbp == entry) break;
            rbp = NativeMemory.getLong(rbp);
        }
        return !write && inLiveScratch(address, end);
    }

    private boolean inLiveScratch(long address, long end) {
        long live = env.get(EnvLayout.SCRATCH_LIVE);
        if (live == 0) return false;
        long off = address - env.get(EnvLayout.SCRATCH_BASE);
        if (off < 0 || off >= (long) Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES) return false;
        long k = off / Limits.STACK_SIZE;
        return (live & (1L << (k + 1))) != 0 && end - env.get(EnvLayout.SCRATCH_BASE) <= (k + 1) * Limits.STACK_SIZE;
    }
}
