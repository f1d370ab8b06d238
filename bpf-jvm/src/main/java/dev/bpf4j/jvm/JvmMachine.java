package dev.bpf4j.jvm;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.CallbackExit;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LegacyPacketOffsets;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RegionTable;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.runtime.RunEntry;
import dev.bpf4j.runtime.RunRules;
import dev.bpf4j.runtime.RunScopedHelperCall;
import dev.bpf4j.runtime.StackFrames;


/**
 * The state of one run of a compiled program: the register file the region methods load and store
 * at their edges, the off-heap frames ({@link StackFrames}, laid out as the interpreter's), the call
 * frames, the region table and what a helper sees. The driver {@link #execute} runs the regions and
 * does what they hand back: bpf-to-bpf calls and exits, tail calls. The generated code calls the
 * memory checks, helpers and atomics here, with the pc of the instruction, so every error names
 * the same pc as the other engines.
 */
@RunEntry // the engine loop and helper bridge: never a frame of a Java caller stack
final class JvmMachine implements RunScopedHelperCall.Run {
    private final JvmProgram home;
    JvmProgram prog;
    final StackFrames stack = new StackFrames();
    final long[] regs = new long[11];
    int depth;
    private final RegionTable regions = new RegionTable();
    /** The last region a checked read / write found its access in: two compares for the next one (the generated code makes them). */
    long readLo, readLen = NO_WINDOW, writeLo, writeLen = NO_WINDOW;
    private static final long NO_WINDOW = -16;
    private int helperPc;
    /** Set by a helper that ended the run or asked for a tail call: the code leaves with {@link JvmCode#STOP}. */
    boolean stop;
    private boolean exited;
    private long exitValue;
    private JvmProgram pendingTailCall;
    private int tailCalls;
    private int mainZeroed;
    private int scratchLive;
    private long packetAddress, packetLength;
    private RunContext context;
    private long budgetLimit;
    /** The unspent budget while a helper or the driver runs; the code keeps it in a local in between. */
    long budgetLeft;
    private int callGeneration;
    private boolean callMade;
    private boolean freed;

    /** The thread that owns this machine (borrowed without atomics, JvmExecutable.Machines), or null for a shared one. */
    final Thread owner;
    /** Whether the owner's run holds it; read and written by the owner thread only. */
    boolean busy;

    JvmMachine(JvmProgram prog, Thread owner) {
        this.home = prog;
        this.prog = prog;
        this.owner = owner;
    }

    void reset(RunContext ctx) {
        long[] r = regs;
        for (int i = 0; i < r.length; i++) r[i] = 0;
        context = ctx;
        for (int i = 0; i < home.entryArgs; i++) r[1 + i] = ctx.arg(i);
        r[10] = stack.frameTop(0);
        stack.zeroFrame(0, home.frameBytesToZero);
        depth = 1;
        prog = home;
        mainZeroed = home.frameBytesToZero;
        stop = exited = false;
        pendingTailCall = null;
        tailCalls = 0;
        scratchLive = 0;
        budgetLimit = budgetLeft = ctx.budget();
        packetAddress = ctx.packetAddress();
        packetLength = ctx.packetLength();
        if (!regions.holds(ctx.regions())) { // windows are only ever on regions: with the same ones they hold for this run too
            regions.bind(ctx.regions());
            dropWindows();
        }
        if (home.guarded != null && guardHolds(r[1], r[2], home.guardWritable)) prog = home.guarded;
    }

    /**
     * The entry guard of the guarded copy ({@link JvmProgram#guarded}), the JIT's {@code EntryGuard}
     * in Java: RegionProof's facts hold for this run, {@code [data, data + len)} lies inside one region
     * (writable when the copy stores through its proofs) and its end neither wraps nor reaches 2^63.
     * Tail calls land in their target's checked code ({@link #tailCall}).
     */
    private boolean guardHolds(long data, long len, boolean writable) {
        long end = data + len;
        return Long.compareUnsigned(end, data) >= 0 && end >= 0 && regions.find(data, end, writable) >= 0;
    }

    /** Runs from {@code pc} until the frame at depth {@code base} exits; returns r0. A tail call switches {@link #prog}. */
    long execute(int pc, int base) {
        final long[] r = regs;
        for (;;) {
            int next = prog.code(pc).run(this, r, pc);
            if (next >= 0) {
                pc = next;
                continue;
            }
            if (next == JvmCode.EXIT) {
                if (depth == base) return r[0];
                pc = leaveCall();
            } else if (next == JvmCode.STOP) {
                if (exited) return exitValue;
                enterTailCall();
                pc = 0;
            } else {
                pc = enterCall(JvmCode.CALL_BASE - next);
            }
        }
    }

    private void dropWindows() { readLen = writeLen = NO_WINDOW; }

    // ---- memory checks (docs/runtime-semantics.md "Memory checks"), the interpreter's rule ----

    /**
     * The checked read of {@code size} bytes at {@code a} by the instruction at {@code pc} when it is
     * not inside the read window (the generated code compares with the window itself,
     * {@code RegionEmitter.windowCheck}): returns {@code a} and moves the window there, or throws OUT_OF_BOUNDS.
     */
    long readSlow(long a, int size, int pc) {
        long end = a + size;
        if (Long.compareUnsigned(end, a) > 0) {
            int i = regions.find(a, end, false);
            if (i >= 0) {
                readLo = regions.start(i);
                readLen = regions.end(i) - regions.start(i);
                return a;
            }
            if (prog.touchesFrames(pc) && stack.liveFrameOf(a, end, depth) >= 0) return a; // frames never become a window
            if (scratchLive != 0 && stack.inLiveScratch(a, end, scratchLive)) return a;
        }
        throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, false);
    }

    /** The same for a write. */
    long writeSlow(long a, int size, int pc) {
        long end = a + size;
        if (Long.compareUnsigned(end, a) > 0) {
            int i = regions.find(a, end, true);
            if (i >= 0) {
                writeLo = regions.start(i);
                writeLen = regions.end(i) - regions.start(i);
                return a;
            }
            if (prog.touchesFrames(pc) && stack.liveFrameOf(a, end, depth) >= 0) return a;
        }
        throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, true);
    }

    private boolean allowed(long a, long size, boolean write, boolean frames) {
        return regions.allows(a, size, write, frames, stack, depth, scratchLive);
    }

    /** BPF_ATOMIC's address: checked as a write, then for alignment (x86 split locks; the kernel refuses them too). */
    long atomicAddress(long a, int size, int pc) {
        if (!allowed(a, size, true, prog.touchesFrames(pc))) throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, true);
        if ((a & (size - 1)) != 0) throw BpfRuntimeException.misalignedAtomic(prog.name, pc, a, size);
        return a;
    }

    // ---- budget, calls ----

    BpfRuntimeException overBudget(int pc) { return BpfRuntimeException.budgetExceeded(prog.name, pc, budgetLimit); }

    private int enterCall(int pc) {
        depth = stack.enterCall(prog.name, pc, regs, depth, prog.frameBytesToZero);
        return prog.callTarget[pc];
    }

    private int leaveCall() {
        depth--;
        dropWindows();
        return stack.leaveCall(regs, depth);
    }

    /** Illegal instruction past the end (a fall-through the validator would have refused). */
    RuntimeException ranPastEnd() { return prog.ranPastEnd(); }

    // ---- helpers: the generated code calls the helper object straight, through these two ----

    /** {@code call helper} at {@code pc}: the bridge a call site's constant {@code h} goes through. */
    static long callHelper(Helper h, JvmMachine m, int pc, long r1, long r2, long r3, long r4, long r5) {
        m.helperPc = pc;
        int d = m.depth;
        try {
            return h.call(m.helperCall(), r1, r2, r3, r4, r5);
        } catch (CallbackExit e) { // a helper inside a callback ended the run: exited is set
            return 0;
        } catch (BpfRuntimeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw m.helperFailed(pc, m.prog.helpers[pc], e);
        } finally {
            m.scratchLive &= ~(1 << d);
        }
    }

    /** {@code callx} at {@code pc}: the helper whose id is {@code id}. */
    long callx(int pc, int reg, long id, long r1, long r2, long r3, long r4, long r5) {
        HelperSpec spec = RunRules.callxTarget(prog.registry, prog.name, pc, reg, id);
        helperPc = pc;
        int d = depth;
        try {
            return spec.body().call(helperCall(), r1, r2, r3, r4, r5);
        } catch (CallbackExit e) {
            return 0;
        } catch (BpfRuntimeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw helperFailed(pc, spec, e);
        } finally {
            scratchLive &= ~(1 << d);
        }
    }

    private BpfRuntimeException helperFailed(int pc, HelperSpec spec, RuntimeException e) {
        return RunRules.helperThrew(prog.name, pc, spec.name(), spec.id(), e);
    }

    // ---- callbacks, tail calls, scratch (docs/runtime-semantics.md), by RunRules ----

    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        JvmProgram p = prog;
        int callPc = helperPc;
        int target = p.callbackPc(handle);
        RunRules.checkCallbackHandle(this, target >= 0, handle);
        RunRules.checkFrameOpen(p.name, callPc, budgetLeft, budgetLimit, depth);
        budgetLeft--;
        int outer = depth;
        depth = stack.enterCallback(regs, depth, p.frameBytesToZero, r1, r2, r3, r4, r5);
        try {
            long r0 = execute(target, depth);
            if (exited) throw CallbackExit.INSTANCE;
            return r0;
        } finally {
            depth = outer;
            dropWindows();
            stack.leaveCallback(regs, outer);
            helperPc = callPc;
        }
    }

    @Override public boolean tailCall(Object target) {
        if (!RunRules.mayTailCall(prog.name, helperPc, depth, tailCalls)) return false;
        JvmExecutable next = RunRules.tailCallTarget(prog.name, helperPc, target, JvmExecutable.class, JvmEngine.NAME);
        if (next == null) return false; // an empty slot does not count, as in Linux's x86-64 JIT
        tailCalls++;
        if (next.isClosed()) throw RunRules.closedTailCallTarget(prog.name, helperPc, next.program().name());
        pendingTailCall = next.forBudget(budgetLeft); // the budget left decides whether the target may skip counting
        stop = true;
        return true;
    }

    private void enterTailCall() {
        mainZeroed = RunRules.defineMainFrame(stack.frameTop(0), mainZeroed);
        prog = pendingTailCall;
        pendingTailCall = null;
        stop = false;
    }

    @Override public long scratch(int size) {
        RunRules.checkScratchSize(this, size);
        scratchLive |= 1 << depth;
        return stack.scratch(depth);
    }

    // ---- LD ABS/IND (docs/runtime-semantics.md "Legacy packet loads") ----

    /**
     * 1, 2 or 4 big-endian bytes of the run's packet at {@code off} (truncated to a signed 32-bit
     * int, as the kernel's bpf_skb_load_helper_* take it; a negative one is past the sk_buff's network or
     * mac header: {@link LegacyPacketOffsets}), or -1 when they are not all inside it.
     */
    long loadPacket(long off, int size) {
        return RunRules.loadPacket(packetAddress, packetLength, context.packetBuffer(), off, size);
    }

    // ---- HelperCall ----

    private RunScopedHelperCall helperCall() {
        callMade = true;
        return new RunScopedHelperCall(this, callGeneration, home.name);
    }

    void endRun() {
        if (callMade) {
            callMade = false;
            callGeneration++;
        }
    }

    @Override public boolean isCurrentRun(int generation) { return generation == callGeneration; }
    @Override public String programName() { return prog.name; }
    @Override public int pc() { return helperPc; }
    @Override public RunContext runContext() { return context; }

    @Override public boolean accessible(long address, long size, boolean write) {
        return size > 0 && allowed(address, size, write, prog.argTouchesFrames(helperPc, 0));
    }

    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return size > 0 && allowed(address, size, write, prog.argTouchesFrames(helperPc, argReg));
    }

    @Override public void replaceRegion(MemoryRegion old, MemoryRegion now) {
        regions.replace(old, now);
        dropWindows();
    }

    /** LD ABS/IND read the packet where the helper left it. */
    @Override public void packetDataMoved(long data, long length) {
        packetAddress = data;
        packetLength = length;
    }

    @Override public void exit(long r0) {
        exited = stop = true;
        exitValue = r0;
    }

    synchronized void free() {
        if (freed) return;
        freed = true;
        stack.free();
    }
}
