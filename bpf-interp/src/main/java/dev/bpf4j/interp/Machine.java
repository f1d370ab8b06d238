package dev.bpf4j.interp;

import dev.bpf4j.runtime.StackFrames;
import dev.bpf4j.runtime.AtomicOps;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.CallbackExit;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LegacyPacketOffsets;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.RegionTable;
import dev.bpf4j.runtime.RunRules;
import dev.bpf4j.runtime.RunScopedHelperCall;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.isa.Opcodes;

import java.util.List;

import static dev.bpf4j.interp.Registers.READ_LEN;
import static dev.bpf4j.interp.Registers.READ_LO;
import static dev.bpf4j.interp.Registers.WRITE_LEN;
import static dev.bpf4j.interp.Registers.WRITE_LO;
import static dev.bpf4j.isa.Opcodes.ATOMIC;
import static dev.bpf4j.isa.Opcodes.CMPXCHG;
import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.isa.Opcodes.FETCH;
import static dev.bpf4j.isa.Opcodes.STX;

/**
 * The mutable state of one run: registers, off-heap stack, call frames, the run's memory regions
 * and what a helper sees ({@link HelperCall}). One machine serves one run at a time; executables
 * pool them so concurrent runs each get their own.
 */
final class Machine implements RunScopedHelperCall.Run {
    /** The program this machine's executable loaded; each run starts with it. */
    private final DecodedProgram home;
    /** The running program: {@link #home}, or the target of the last tail call. */
    DecodedProgram prog;
    final StackFrames stack = new StackFrames();
    final long[] regs = new long[Registers.SLOTS];
    /** Live frames, the main program's included. */
    int depth;
    private final RegionTable regions = new RegionTable();
    private int helperPc;
    /** Set by a helper that ended the run ({@link #exit}) or asked for a tail call: the loop must look. */
    boolean stop;
    boolean exited;
    long exitValue;
    private DecodedProgram pendingTailCall;
    private int tailCalls;
    /** Bytes below the main frame's r10 zeroed at entry; a tail call zeroes the rest once. */
    private int mainZeroed;
    /** Bit d set: the scratch buffer of the helper call made at frame depth d is readable. */
    private int scratchLive;
    private long packetAddress, packetLength;
    private RunContext context;
    /**
     * Moves on after each run that handed out a {@link RunScopedHelperCall}: views carry the generation of
     * their run, so a view kept past it fails. A number and a flag, not the view itself: storing a
     * fresh object into this long-lived one would pay G1's card-marking barrier (a fence, here).
     */
    private int callGeneration;
    private boolean callMade;

    /** The thread that owns this machine (see {@link MachinePool}), or null for a shared one. */
    final Thread owner;
    /** A run is using this owned machine; read and written only by {@link #owner}. */
    boolean busy;
    private boolean freed;

    Machine(DecodedProgram prog, Thread owner) {
        this.home = prog;
        this.prog = prog;
        this.owner = owner;
    }

    /** Prepares registers, frames and regions for a fresh run of {@code ctx}. */
    void reset(RunContext ctx) {
        long[] r = regs; // 8-byte stores, not Arrays.fill: its wide vector stores stall the loop's first loads
        r[0] = 0; r[1] = 0; r[2] = 0; r[3] = 0; r[4] = 0; r[5] = 0; r[6] = 0; r[7] = 0; r[8] = 0; r[9] = 0;
        // Reference fields are stored only when they change: under G1 a reference store into an
        // old object can cost a StoreLoad fence in its card-marking barrier, more than the rest.
        if (context != ctx) context = ctx;
        for (int i = 0; i < home.entryArgs; i++) regs[1 + i] = ctx.arg(i);
        regs[10] = stack.frameTop(0); // always: the unchecked r10-relative accesses trust it
        stack.zeroFrame(0, home.frameBytesToZero);
        boolean settled = cleanEnd;
        cleanEnd = false;
        if (!settled) resetFrameAndFlags();
        budgetLimit = budgetLeft = ctx.budget();
        packetAddress = ctx.packetAddress();
        packetLength = ctx.packetLength();
        List<MemoryRegion> rs = ctx.regions();
        if (!regions.holds(rs)) {
            regions.bind(rs);
            dropWindows();
        } else if (!settled) { // a window on a region or on the main frame holds for this run too
            if (!validAtEntry(regs[READ_LO])) regs[READ_LEN] = NO_WINDOW;
            if (!validAtEntry(regs[WRITE_LO])) regs[WRITE_LEN] = NO_WINDOW;
        }
    }

    /**
     * Set when the last run ended at main's {@code exit} without leaving the dispatch loop
     * ({@link Interpreter#execute}): nothing but registers and memory changed, so the frame depth,
     * the running program, the helper and tail-call flags and the windows are as this method left
     * them, and the next reset skips them. Also set when the driver ran but main's exit finds that
     * state unchanged ({@link #asReset}). Any other end (a tail call, a helper's exit, or the run
     * threw) leaves it false.
     */
    boolean cleanEnd;

    /**
     * True when what {@link #resetFrameAndFlags} sets is still as it left it: at main's exit after
     * helper calls, calls and callbacks (their frames have died and taken their windows with them), but
     * not after a tail call or a tail-call attempt. The windows left are on regions or the main frame.
     */
    boolean asReset() {
        return depth == 1 && prog == home && mainZeroed == home.frameBytesToZero && !stop && !exited && pendingTailCall == null
                && tailCalls == 0 && scratchLive == 0;
    }

    /** What only calls, helpers, tail calls and errors change: back to a fresh run's values. */
    private void resetFrameAndFlags() {
        depth = 1;
        if (prog != home) prog = home;
        mainZeroed = home.frameBytesToZero;
        stop = exited = false;
        if (pendingTailCall != null) pendingTailCall = null;
        tailCalls = 0;
        scratchLive = 0;
    }

    // ---- memory checks (docs/runtime-semantics.md "Memory checks") ----

    /**
     * True when {@code [a, a + size)} is inside one region (writable if {@code write}) or, when
     * {@code frames} (the verifier typed the access as a stack pointer), one live frame.
     */
    boolean allowed(long a, long size, boolean write, boolean frames) {
        return regions.allows(a, size, write, frames, stack, depth, scratchLive);
    }

    long check(long a, int size, boolean write, int pc) {
        if (!allowed(a, size, write, prog.touchesFrames(pc))) throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, write);
        return a;
    }

    /*
     * The fast path of the checks: one window per direction, the region or live frame the last
     * slow check of that direction found the access in. An access inside it needs two compares;
     * anything else takes the full check, which moves the window. A window on a frame is dropped
     * when frames die (leaveCall, a callback's return, reset); regions live for the whole run.
     * Scratch buffers never become a window.
     */
    private static final long NO_WINDOW = -16; // below 0 - size for every size: nothing is inside
    /** The full read check of an access outside the read window: moves the window or throws OUT_OF_BOUNDS. */
    long readSlow(long a, int size, int pc) {
        long end = a + size;
        if (Long.compareUnsigned(end, a) > 0) {
            int i = regions.find(a, end, false);
            if (i >= 0) {
                regs[READ_LO] = regions.start(i);
                regs[READ_LEN] = regions.end(i) - regions.start(i);
                return a;
            }
            int k = prog.touchesFrames(pc) ? stack.liveFrameOf(a, end, depth) : -1;
            if (k >= 0) {
                if (prog.unverified()) { // verified: a window on a frame would let any access in
                    regs[READ_LO] = stack.frameTop(k) - Limits.STACK_SIZE;
                    regs[READ_LEN] = Limits.STACK_SIZE;
                }
                return a;
            }
            if (scratchLive != 0 && stack.inLiveScratch(a, end, scratchLive)) return a;
        }
        throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, false);
    }

    /** The full write check of an access outside the write window: moves the window or throws OUT_OF_BOUNDS. */
    long writeSlow(long a, int size, int pc) {
        long end = a + size;
        if (Long.compareUnsigned(end, a) > 0) {
            int i = regions.find(a, end, true);
            if (i >= 0) {
                regs[WRITE_LO] = regions.start(i);
                regs[WRITE_LEN] = regions.end(i) - regions.start(i);
                return a;
            }
            int k = prog.touchesFrames(pc) ? stack.liveFrameOf(a, end, depth) : -1;
            if (k >= 0) {
                if (prog.unverified()) {
                    regs[WRITE_LO] = stack.frameTop(k) - Limits.STACK_SIZE;
                    regs[WRITE_LEN] = Limits.STACK_SIZE;
                }
                return a;
            }
        }
        throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, true);
    }

    /** A window starting at {@code lo} is on a region or on the main frame, not on a callee's frame. */
    private boolean validAtEntry(long lo) {
        return Long.compareUnsigned(lo - stack.base, StackFrames.BYTES) >= 0 || lo == stack.frameTop(0) - Limits.STACK_SIZE;
    }

    /** Frames died: a window on one of them must not let an access through. */
    private void dropWindows() { regs[READ_LEN] = regs[WRITE_LEN] = NO_WINDOW; }

    /** BPF_ATOMIC: checks, performs, and writes the fetched value to src (or r0 for cmpxchg). */
    void atomic(long w, int pc) {
        int d = InsnCode.dst(w), s = InsnCode.src(w), size = InsnCode.opcode(w) == (STX | ATOMIC | DW) ? 8 : 4;
        int op = InsnCode.imm(w);
        long a = check(regs[d] + InsnCode.off(w), size, true, pc);
        if ((a & (size - 1)) != 0) throw BpfRuntimeException.misalignedAtomic(prog.name, pc, a, size);
        if (op == CMPXCHG) {
            regs[0] = size == 8 ? AtomicOps.cmpxchg64(a, regs[0], regs[s]) : AtomicOps.cmpxchg32(a, regs[0], regs[s]);
            return;
        }
        long old = size == 8 ? AtomicOps.rmw64(a, op, regs[s]) : AtomicOps.rmw32(a, op, regs[s]);
        if ((op & FETCH) != 0) regs[s] = old;
    }

    // ---- calls ----

    /** The run's budget of back-edges plus calls, for the error message. */
    private long budgetLimit;
    /**
     * What is left of the budget. {@link HotLoop} counts in a local and hands the count back here
     * (through {@link Registers#BUDGET}) whenever it returns to {@link Interpreter}, so calls, helpers
     * and their callbacks spend the same budget.
     */
    long budgetLeft;

    BpfRuntimeException overBudget(int pc) { return BpfRuntimeException.budgetExceeded(prog.name, pc, budgetLimit); }

    /** {@code call local}: saves r6-r9 and the return pc, opens a fresh frame; returns the target pc. */
    int enterCall(long w, int pc) {
        depth = stack.enterCall(prog.name, pc, regs, depth, prog.frameBytesToZero);
        return InsnCode.imm(w);
    }

    /** {@code exit} from a subprogram: restores the caller's r6-r10; returns the pc after the call. */
    int leaveCall() {
        depth--;
        dropWindows();
        return stack.leaveCall(regs, depth);
    }

    /**
     * {@code call helper}: r0 = helper(r1..r5). A helper error ends the run; other exceptions become
     * HELPER_FAILED. Afterwards {@link #stop} tells the loop about an exit or a tail call.
     */
    long callHelper(int pc) { return callHelper(pc, prog.helpers[pc], prog.helperSpecs[pc]); }

    /**
     * callx at {@code pc}: calls the helper whose id is in {@code reg}, as {@link #callHelper(int)} does; an id
     * that names no registered helper ends the run with HELPER_FAILED at {@code pc}.
     */
    long callx(int pc, int reg) {
        HelperSpec spec = RunRules.callxTarget(prog.registry, prog.name, pc, reg, regs[reg]);
        return callHelper(pc, spec.body(), spec);
    }

    private long arg(int unset, int r) { return (unset & (1 << r)) != 0 ? 0 : regs[r]; }

    private long callHelper(int pc, Helper h, HelperSpec spec) {
        helperPc = pc;
        int d = depth;
        try {
            int unset = prog.unsetArgs(pc);
            if (unset == 0) return h.call(helperCall(), regs[1], regs[2], regs[3], regs[4], regs[5]);
            // a dead register holds what each engine left there: never-set arguments are 0 on every engine
            return h.call(helperCall(), arg(unset, 1), arg(unset, 2), arg(unset, 3), arg(unset, 4), arg(unset, 5));
        } catch (CallbackExit e) { // a helper inside a callback ended the run: exited is set
            return 0;
        } catch (BpfRuntimeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw RunRules.helperThrew(prog.name, pc, spec.name(), spec.id(), e);
        } finally {
            scratchLive &= ~(1 << d);
        }
    }

    // ---- callbacks, tail calls, scratch (docs/runtime-semantics.md) ----

    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        DecodedProgram p = prog;
        int callPc = helperPc;
        int target = p.callbackPc(handle);
        RunRules.checkCallbackHandle(this, target >= 0, handle);
        RunRules.checkFrameOpen(p.name, callPc, budgetLeft, budgetLimit, depth);
        budgetLeft--;
        int outer = depth;
        depth = stack.enterCallback(regs, depth, p.frameBytesToZero, r1, r2, r3, r4, r5);
        try {
            long r0 = Interpreter.execute(p, this, target, budgetLeft, depth);
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
        InterpretedExecutable next = RunRules.tailCallTarget(prog.name, helperPc, target, InterpretedExecutable.class, "interp");
        if (next == null) return false; // an empty slot does not count, as in Linux's x86-64 JIT
        tailCalls++;
        if (next.isClosed()) throw RunRules.closedTailCallTarget(prog.name, helperPc, next.program().name());
        pendingTailCall = next.decoded();
        stop = true;
        return true;
    }

    /** After a helper asked for a tail call: the running program becomes the target, same registers and frame. */
    DecodedProgram enterTailCall() {
        mainZeroed = RunRules.defineMainFrame(stack.frameTop(0), mainZeroed);
        prog = pendingTailCall;
        pendingTailCall = null;
        stop = false;
        return prog;
    }

    @Override public long scratch(int size) {
        RunRules.checkScratchSize(this, size);
        scratchLive |= 1 << depth;
        return stack.scratch(depth);
    }

    // ---- LD ABS/IND (docs/runtime-semantics.md "Legacy packet loads") ----

    /**
     * Loads 1, 2 or 4 big-endian bytes of the run's packet into r0 and returns true, or returns
     * false when {@code [offset, offset + size)} is not inside it. The offset is the imm (plus src
     * for IND) truncated to a signed 32-bit int, as the kernel's bpf_skb_load_helper_* take it;
     * a negative one is past the sk_buff's network or mac header ({@link LegacyPacketOffsets}).
     */
    boolean loadPacket(long w) {
        int op = InsnCode.opcode(w);
        long off = InsnCode.imm(w);
        if ((op & 0xe0) == Opcodes.IND) off += regs[InsnCode.src(w)];
        long v = RunRules.loadPacket(packetAddress, packetLength, context.packetBuffer(), off, Opcodes.sizeBytes(op));
        if (v < 0) return false;
        regs[0] = v;
        return true;
    }

    // ---- HelperCall ----

    /** A HelperCall view of this run (a small object per helper call, live until the run returns). */
    private RunScopedHelperCall helperCall() {
        if (!callMade) callMade = true;
        return new RunScopedHelperCall(this, callGeneration, home.name);
    }

    /** The run using this machine has returned: the views its helpers got (and may have kept) go dead. */
    void endRun() {
        if (callMade) {
            callMade = false;
            callGeneration++;
        }
    }

    /** Whether a view of run generation {@code generation} belongs to the run in progress. */
    @Override public boolean isCurrentRun(int generation) { return generation == callGeneration; }

    /** The running program's name (a tail call changes it). */
    @Override public String programName() { return prog.name; }
    @Override public int pc() { return helperPc; }
    @Override public RunContext runContext() { return context; }

    /**
     * The run-time memory check for a helper; an empty range is not accessible, as in
     * {@link MemoryRegion#allows}. A frame only when some argument of the call may be a stack pointer.
     */
    @Override public boolean accessible(long address, long size, boolean write) {
        return size > 0 && allowed(address, size, write, prog.argTouchesFrames(helperPc, 0));
    }

    /** As above for memory of argument {@code argReg}: a frame only when the verifier typed that argument as a stack pointer. */
    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return size > 0 && allowed(address, size, write, prog.argTouchesFrames(helperPc, argReg));
    }

    /**
     * A helper moved the packet: the table holds {@code now} in place of {@code old} for the rest of
     * the run, and the access windows go (one may lie on the old bounds). The next run's reset finds
     * its context's list unequal to this one and binds it afresh.
     */
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

    /** Frees the off-heap stack, once, whichever thread gets here first. */
    synchronized void free() {
        if (freed) return;
        freed = true;
        stack.free();
    }
}
