package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.ProgramTag;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.jit.compiler.FunctionLayout;
import dev.bpf4j.jit.compiler.JitLayout;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.verifier.InsnAux;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A program in executable memory, registered with the code map. {@link #run} calls the entry
 * function {@code long fn(void *ctx, void *env)} through {@link JniEntry}; runs may overlap on many threads
 * (each has its own env block); {@link #close} waits for them, unregisters and unmaps the code.
 *
 * <p>A run announces itself in a hazard slot of its thread ({@link ThreadRuns#publish}) and then
 * checks {@link #closed}; {@code close} sets {@code closed}, makes every thread pass a barrier and
 * waits until no slot holds the program ({@link RunRegistry#awaitQuiescent}). Either the run sees
 * {@code closed} and backs out, or close sees its slot and waits: code is never unmapped under a
 * run, and entering costs no atomic instruction.
 *
 * <p>A program that becomes unreachable without being closed has its code unregistered and unmapped by
 * a cleaner ({@link CodeRelease}), as the interpreter frees its machines. Unreachable means unused:
 * a run holds the program on its stack until it ends, a prog-array slot and a run that tail-called
 * into it ({@link TailCalls}) hold it, and so do native probes ({@link DirectRuns} keeps their owners).
 */
public final class JitExecutable implements Executable {
    public static final String MODULE = "bpf4j-jit";
    private static final Cleaner CLEANER = Cleaner.create();

    private final Program program;
    private final CompiledProgram compiled;
    /** The Java helpers the code calls, by id: scanned (a program binds few), so that a call boxes no id. */
    private final int[] javaHelperIds;
    private final HelperSpec[] javaHelperSpecs;
    /**
     * Whether the code can call into Java (a helper bound to the bridge): only then can anything
     * read the run's program and context while it runs, so only then does a run begin with them.
     */
    private final boolean callsJava;
    private final Map<Integer, HelperBinding> bindings; // strongly held: code calls their addresses
    private final ExecutableMemory memory;
    /** {@code memory.address()}: the entry function. */
    private final long entry;
    /** What a run publishes in its thread's hazard slot (never 0). */
    private final long id = IDS.incrementAndGet();
    private static final AtomicLong IDS = new AtomicLong();
    private final List<CodeRegion> regions;
    /** Unregisters and unmaps the code once: called by close, or by the cleaner when close never was. */
    private final Cleaner.Cleanable release;
    /** Native addresses of the functions an {@code lddw src=4} names: the valid callback handles. */
    private final long[] callbackHandles;
    /** Bytes of the main frame its prologue zeroes (CompiledProgram.mainZeroed). */
    private final int mainZeroed;
    /** Set once by close, before it waits for runs: no run enters the code after seeing it. */
    private volatile boolean closed;
    /** Set once close has finished (the code is unmapped); a second close waits for it under {@link #lifecycle}. */
    private boolean unmapped;
    /** Orders {@link #pin(String)} against close, and lets a second close wait for the first. */
    private final Object lifecycle = new Object();
    /** Callers that jump to {@link #entryAddress()} themselves (native probes): close refuses while any remain. */
    private final AtomicInteger pins = new AtomicInteger();
    /** Runs that tail-called into this program and keep it mapped until they end ({@link #pinForTailCall}). */
    private final AtomicInteger tailPins = new AtomicInteger();

    /**
     * The state of the thread that ran this program last (an owner-thread cache, as the
     * interpreter's): a run on the same thread skips the thread-local lookup. Read and written
     * racily by every running thread; a stale or foreign value only fails {@link ThreadRuns#isCurrent}.
     * Dropped by close (it may keep a dead thread's env blocks alive until then).
     */
    private ThreadRuns lastThread;

    /** Which per-run words {@link EnvBlock#prepare} writes for this program: {@link EnvBlock#entryWords}. */
    private final int entryWords;

    /**
     * Where the code counts no budget events ({@link #elideBudget}): the verifier's bound on a run's
     * events, else -1. A run (or a tail call) with less budget than this goes to {@link #counting}.
     */
    private long budgetBound = -1;
    /** Compiles the same program with budget counting, on first need; null where the code counts. */
    private java.util.function.Supplier<JitExecutable> countingLoader;
    /** The counting twin, once made: closed with this program. */
    private volatile JitExecutable counting;

    /** As below, writing every per-run word (all five arguments and the packet) before each run. */
    public JitExecutable(Program program, CompiledProgram compiled, Map<Integer, HelperSpec> javaHelpers,
                         Map<Integer, HelperBinding> bindings) {
        this(program, compiled, javaHelpers, bindings, 5, true);
    }

    /**
     * {@code entryArgs} and {@code legacyPacketLoads}: the load options {@code compiled} was compiled
     * with; each run then writes only the entry words the code reads.
     */
    public JitExecutable(Program program, CompiledProgram compiled, Map<Integer, HelperSpec> javaHelpers,
                         Map<Integer, HelperBinding> bindings, int entryArgs, boolean legacyPacketLoads) {
        this.program = program;
        this.entryWords = EnvBlock.entryWords(entryArgs, legacyPacketLoads);
        this.compiled = compiled;
        this.javaHelperIds = javaHelpers.keySet().stream().mapToInt(Integer::intValue).toArray();
        this.javaHelperSpecs = new HelperSpec[javaHelperIds.length];
        for (int i = 0; i < javaHelperIds.length; i++) javaHelperSpecs[i] = javaHelpers.get(javaHelperIds[i]);
        this.callsJava = javaHelperIds.length > 0 || bindings.containsKey(HelperBinding.CALLX); // callx: even with no helpers
        this.bindings = Map.copyOf(bindings);
        this.memory = ExecutableMemory.of(compiled.code());
        this.entry = memory.address();
        this.regions = codeRegions(program, compiled.layout(), memory.address());
        this.callbackHandles = callbackHandles(program, compiled.layout(), memory.address());
        this.mainZeroed = compiled.mainZeroed();
        List<CodeRegion> done = new ArrayList<>();
        try {
            for (CodeRegion r : regions) { CodeMap.global().register(r); done.add(r); }
        } catch (RuntimeException e) {
            done.forEach(CodeMap.global()::unregister);
            memory.close();
            throw e;
        }
        this.release = CLEANER.register(this, new CodeRelease(regions, memory));
    }

    /** What unloading a program frees; holds no reference to the program itself (else it would never be unreachable). */
    private record CodeRelease(List<CodeRegion> regions, ExecutableMemory memory) implements Runnable {
        @Override public void run() {
            for (CodeRegion r : regions) CodeMap.global().unregister(r);
            memory.close();
        }
    }

    @Override public Program program() { return program; }

    /**
     * Marks this program's code as compiled without budget counting, which is exact for runs with at
     * least {@code bound} budget (the verifier's {@code VerifierStats.budgetBound}: no run has more
     * events); {@code counting} compiles the counting twin that serves the runs with less.
     */
    public void elideBudget(long bound, java.util.function.Supplier<JitExecutable> counting) {
        if (bound < 0) throw new IllegalArgumentException("bound " + bound);
        this.budgetBound = bound;
        this.countingLoader = java.util.Objects.requireNonNull(counting);
    }

    /** The verifier's bound the code relies on (no budget counted), else -1. */
    public long budgetBound() { return budgetBound; }

    /** This program when {@code budget} covers its bound (or its code counts), else its counting twin. */
    JitExecutable forBudget(long budget) {
        return budget >= budgetBound ? this : countingTwin();
    }

    private JitExecutable countingTwin() {
        JitExecutable t = counting;
        if (t != null) return t;
        synchronized (lifecycle) {
            if (closed) throw closedError();
            if (counting == null) counting = countingLoader.get();
            return counting;
        }
    }

    /** The id a run of this program publishes in its thread's hazard slot. */
    long id() { return id; }

    /** Address of the entry function (the main program). */
    public long entryAddress() { return memory.address(); }

    public JitLayout layout() { return compiled.layout(); }

    /**
     * Where a tail call into this program lands: its pc 0, past the prologue (kernel style). The
     * calling program's main frame has the same shape — every main function saves all callee-saved
     * registers below its 512-byte stack — so rbp, rsp, the saved registers and the stack contents
     * carry over unchanged, as the interpreter keeps the frame.
     */
    long tailCallAddress() { return memory.address() + compiled.layout().pcOffsets()[0]; }

    /** The Java helper bound to {@code id}, or null. */
    /** The verifier's facts the program was compiled with; null for an unverified program. */
    InsnAux aux() { return compiled.aux(); }

    HelperSpec javaHelper(int id) {
        int[] ids = javaHelperIds;
        for (int i = 0; i < ids.length; i++) if (ids[i] == id) return javaHelperSpecs[i];
        return null;
    }

    int mainZeroed() { return mainZeroed; }

    /** True when the code may read the run's packet (LD ABS/IND): a tail call into it must provide one. */
    boolean readsPacket() { return EnvBlock.readsPacket(entryWords); }

    /** The callback entry stub: {@code long entry(fn, env)} (the stub block starts with it). */
    long callbackEntryAddress() { return memory.address() + compiled.layout().stubOffset(); }

    /** True when {@code handle} is the address of a function this program's {@code lddw src=4} loads. */
    boolean isCallbackHandle(long handle) {
        for (long h : callbackHandles) if (h == handle) return true;
        return false;
    }

    private static long[] callbackHandles(Program program, JitLayout layout, long base) {
        List<Insn> insns = program.insns();
        List<Long> out = new ArrayList<>();
        for (int pc = 0; pc < insns.size(); pc++) {
            Insn i = insns.get(pc);
            if (i.opcode() == Opcodes.LDDW && i.src() == Opcodes.PSEUDO_FUNC) {
                int target = pc + 1 + i.imm();
                for (FunctionLayout f : layout.functions()) if (f.startPc() == target) out.add(base + f.codeOffset());
            }
            if (i.isLddw()) pc++;
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Keeps this program's code mapped for the rest of a run that tail-called into it; false when it
     * is closed or closing (the tail call then fails). Released with {@link #unpinTailCall}. A
     * counter, not a hazard slot: tail calls are rare and already pay a helper call; the atomic
     * increment is the fence that pairs with close's volatile store of {@code closed}.
     */
    boolean pinForTailCall() {
        if (closed) return false;
        tailPins.incrementAndGet();
        if (closed) {
            tailPins.decrementAndGet();
            return false;
        }
        return true;
    }

    void unpinTailCall() { tailPins.decrementAndGet(); }

    private IllegalStateException closedError() {
        return new IllegalStateException("program '" + program.name() + "' is closed");
    }

    public CompiledProgram compiled() { return compiled; }

    /** The code-map regions of this program: one per function, then the stub block. */
    public List<CodeRegion> codeRegions() { return regions; }

    public Map<Integer, HelperBinding> helperBindings() { return bindings; }

    /** The calling thread's state: the cached one when the same thread runs this program again. */
    private ThreadRuns threadRuns() {
        ThreadRuns t = lastThread;
        if (t != null && t.isCurrent()) return t;
        t = ThreadRuns.get();
        lastThread = t;
        return t;
    }

    /** True when the code may call a Java helper: bound to the bridge, or native code that hands cases to it (NativeStackId). */
    public boolean callsJava() { return callsJava; }

    @Override public long run(RunContext context) {
        if (context.budget() < budgetBound) return countingTwin().run(context);
        return enter(context, 1);
    }

    /**
     * Programs that call no Java run the loop in native code (one JVM transition for all the runs);
     * the others go back to Java between runs, as each run's helpers need their run's bookkeeping.
     */
    @Override public long runRepeated(RunContext context, int times) {
        if (times < 1) throw new IllegalArgumentException("times must be at least 1: " + times);
        if (context.budget() < budgetBound) return countingTwin().runRepeated(context, times);
        if (times == 1 || callsJava || !JniEntry.repeats()) return Executable.super.runRepeated(context, times);
        return enter(context, times);
    }

    private long enter(RunContext context, int times) {
        ThreadRuns thread = threadRuns();
        int level = thread.depth();
        try { // publish inside: whatever stops it half-way (a StackOverflowError), the slot is cleared
            thread.publish(level, id);
            if (closed) throw closedError();
            EnvBlock env = thread.block(level, context);
            env.prepare(context, entryWords);
            JitRun run = env.run();
            if (callsJava) run.begin(this, context); // else only an error needs them: finish begins then
            try {
                long r0 = times == 1 ? JniEntry.call(entry, context.arg(0), env.address())
                        : JniEntry.repeat(entry, context.arg(0), env.address(), times);
                return run.finish(r0, this, context);
            } finally {
                run.deactivate(); // also unpins the programs it tail-called into
            }
        } finally {
            thread.retract(level);
            Reference.reachabilityFence(this); // the cleaner must not unmap code a run is in
        }
    }

    /**
     * Keeps the code mapped for a caller that calls {@link #entryAddress()} directly instead of
     * through {@link #run} (a native probe's trampoline): {@link #close} refuses until the returned
     * action has run.
     */
    public Runnable pin(String by) {
        synchronized (lifecycle) {
            if (closed) throw closedError();
            pins.incrementAndGet();
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> { if (released.compareAndSet(false, true)) pins.decrementAndGet(); };
    }

    /**
     * Refuses while native probes call the code directly or when called from inside one of this
     * program's runs; otherwise stops new runs, waits for the runs in progress (and the runs that
     * tail-called into this program) to leave, then unregisters and unmaps the code. Idempotent: a
     * second close returns once the first has unmapped.
     */
    @Override public void close() {
        if (JitRun.isRunningOnThisThread(this)) {
            // A helper closing the program it runs in would wait for itself forever.
            throw new IllegalStateException("program '" + program.name() + "' cannot be closed from inside one of its own runs");
        }
        synchronized (lifecycle) {
            if (closed) {
                awaitUnmapped();
                return;
            }
            if (pins.get() > 0) {
                throw new IllegalStateException("program '" + program.name() + "' is still called directly by " + pins.get() + " native probe(s): detach them first");
            }
            closed = true;
        }
        try {
            RunRegistry.awaitQuiescent(this);
            for (long park = 1_000; tailPins.get() > 0; park = Math.min(park * 2, 1_000_000)) LockSupport.parkNanos(park);
            release.clean(); // once: the cleaner then has nothing left to do
            JitExecutable twin = counting;
            if (twin != null) twin.close();
            lastThread = null;
        } finally { // also when waiting failed (the code then stays mapped): a second close must not hang
            synchronized (lifecycle) {
                unmapped = true;
                lifecycle.notifyAll();
            }
        }
    }

    /** Under {@link #lifecycle}: waits (uninterruptibly, as close always did) until the closing thread has unmapped. */
    private void awaitUnmapped() {
        boolean interrupted = false;
        while (!unmapped) {
            try {
                lifecycle.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /**
     * The code-map regions (symbols, extents, unwind rows) of {@code program} compiled to {@code layout}
     * at {@code base}: what {@link #codeRegions()} holds once mapped; disassemblers pass base 0.
     */
    public static List<CodeRegion> codeRegions(Program program, JitLayout layout, long base) {
        List<CodeRegion> out = new ArrayList<>();
        String name = symbolName(program.name());
        String mainTag = ProgramTag.of(program.insns());
        int[] starts = layout.functions().stream().mapToInt(FunctionLayout::startPc).toArray();
        for (FunctionLayout f : layout.functions()) {
            // As kallsyms: main carries the program's tag, each subprogram its own.
            String tag = f.isMain() ? mainTag : ProgramTag.ofSubprogram(program.insns(), f.startPc(), f.endPc(), starts);
            String symbol = "bpf_prog_" + tag + "_" + (f.isMain() ? name : "F");
            out.add(new CodeRegion(base + f.codeOffset(), f.codeSize(), symbol, MODULE, f.unwindRows()));
        }
        if (layout.entryTrampoline().isPresent()) {
            FunctionLayout t = layout.entryTrampoline().get();
            out.add(new CodeRegion(base + t.codeOffset(), t.codeSize(), "bpf_prog_" + mainTag + "_" + name + "__entry", MODULE, t.unwindRows()));
        }
        out.add(new CodeRegion(base + layout.stubOffset(), layout.stubSize(),
                "bpf_prog_" + mainTag + "_" + name + "__stubs", MODULE, layout.stubRows()));
        return out;
    }

    /** Longest program name the kernel keeps (BPF_OBJ_NAME_LEN - 1), as kallsyms and perf show it. */
    static final int KERNEL_NAME_LEN = 15;

    /** Kernel program names are {@code [A-Za-z0-9_.]} and at most 15 characters; anything else becomes '_'. */
    static String symbolName(String name) {
        StringBuilder s = new StringBuilder(name.length());
        for (char ch : name.toCharArray()) s.append(Character.isLetterOrDigit(ch) && ch < 128 || ch == '_' || ch == '.' ? ch : '_');
        if (s.length() > KERNEL_NAME_LEN) s.setLength(KERNEL_NAME_LEN);
        return s.length() == 0 ? "prog" : s.toString();
    }
}
