package dev.bpf4j.interp;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.List;

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
final class Machine implements HelperCall {
    final DecodedProgram prog;
    final StackFrames stack = new StackFrames();
    final long[] regs = new long[11];
    /** r6-r9 of each caller, 4 per frame. */
    private final long[] saved = new long[Limits.MAX_CALL_FRAMES * 4];
    private final int[] returnPc = new int[Limits.MAX_CALL_FRAMES];
    /** Live frames, the main program's included. */
    int depth;
    private long[] regionStart = new long[4], regionEnd = new long[4];
    private boolean[] regionWritable = new boolean[4];
    private int regionCount;
    private List<MemoryRegion> boundRegions;
    private int helperPc;
    boolean exited;
    long exitValue;
    private RunContext context;

    Machine(DecodedProgram prog) { this.prog = prog; }

    /** Prepares registers, frames and regions for a fresh run of {@code ctx}. */
    void reset(RunContext ctx) {
        java.util.Arrays.fill(regs, 0);
        context = ctx;
        for (int i = 0; i < prog.entryArgs; i++) regs[1 + i] = ctx.arg(i);
        regs[10] = stack.frameTop(0);
        depth = 1;
        exited = false;
        budget = ctx.budget();
        List<MemoryRegion> rs = ctx.regions();
        if (rs != boundRegions) bind(rs); // RunContext's list is immutable: same list, same table
    }

    private void bind(List<MemoryRegion> rs) {
        boundRegions = rs;
        int n = rs.size();
        if (n > regionStart.length) {
            regionStart = new long[n];
            regionEnd = new long[n];
            regionWritable = new boolean[n];
        }
        for (int i = 0; i < n; i++) {
            MemoryRegion r = rs.get(i);
            regionStart[i] = r.start();
            regionEnd[i] = r.end();
            regionWritable[i] = r.writable();
        }
        regionCount = n;
    }

    // ---- memory checks (docs/runtime-semantics.md "Memory checks") ----

    /** True when {@code [a, a + size)} is inside one region (writable if {@code write}) or one live frame. */
    boolean allowed(long a, long size, boolean write) {
        long end = a + size;
        if (Long.compareUnsigned(end, a) <= 0) return false; // empty or wraps around
        for (int i = 0; i < regionCount; i++) {
            if ((!write || regionWritable[i])
                    && Long.compareUnsigned(a, regionStart[i]) >= 0
                    && Long.compareUnsigned(end, regionEnd[i]) <= 0) return true;
        }
        return stack.inLiveFrame(a, end, depth);
    }

    long check(long a, int size, boolean write, int pc) {
        if (!allowed(a, size, write)) throw BpfRuntimeException.outOfBounds(prog.name, pc, a, size, write);
        return a;
    }

    long load(long a, int size, int pc) { return NativeMemory.load(check(a, size, false, pc), size); }

    void store(long a, int size, long v, int pc) { NativeMemory.store(check(a, size, true, pc), size, v); }

    /** LDX MEMSX: sign-extending load of 1, 2 or 4 bytes. */
    long loadSx(long a, int size, int pc) {
        check(a, size, false, pc);
        switch (size) {
            case 1: return NativeMemory.getByte(a);
            case 2: return NativeMemory.getShort(a);
            default: return NativeMemory.getInt(a);
        }
    }

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
    long budget;

    BpfRuntimeException overBudget(int pc) { return BpfRuntimeException.budgetExceeded(prog.name, pc, budget); }

    /** {@code call local}: saves r6-r9 and the return pc, opens a fresh frame; returns the target pc. */
    int enterCall(long w, int pc) {
        if (depth == Limits.MAX_CALL_FRAMES) throw BpfRuntimeException.callDepthExceeded(prog.name, pc, Limits.MAX_CALL_FRAMES);
        System.arraycopy(regs, 6, saved, depth * 4, 4);
        returnPc[depth] = pc + 1;
        regs[10] = stack.frameTop(depth);
        depth++;
        return InsnCode.imm(w);
    }

    /** {@code exit} from a subprogram: restores the caller's r6-r10; returns the pc after the call. */
    int leaveCall() {
        depth--;
        System.arraycopy(saved, depth * 4, regs, 6, 4);
        regs[10] = stack.frameTop(depth - 1);
        return returnPc[depth];
    }

    /** {@code call helper}: r0 = helper(r1..r5). A helper error ends the run; other exceptions become HELPER_FAILED. */
    long callHelper(int pc) {
        Helper h = prog.helpers[pc];
        helperPc = pc;
        try {
            return h.call(this, regs[1], regs[2], regs[3], regs[4], regs[5]);
        } catch (BpfRuntimeException e) {
            throw e;
        } catch (RuntimeException e) {
            BpfRuntimeException failure = new BpfRuntimeException(ErrorKind.HELPER_FAILED, prog.name, pc, 0,
                    "helper " + prog.helperSpecs[pc].name() + " (id " + prog.helperSpecs[pc].id() + ") threw " + e);
            failure.initCause(e);
            throw failure;
        }
    }

    // ---- HelperCall ----

    @Override public String programName() { return prog.name; }
    @Override public int pc() { return helperPc; }
    @Override public RunContext runContext() { return context; }

    /** The run-time memory check; an empty range is not accessible, as in {@link MemoryRegion#allows}. */
    @Override public boolean accessible(long address, long size, boolean write) {
        return size > 0 && allowed(address, size, write);
    }

    @Override public void exit(long r0) {
        exited = true;
        exitValue = r0;
    }

    void free() { stack.free(); }
}
