package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.program.CallSiteConstants;
import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.verifier.InsnAux;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * State of one translation pass: the encoder, the offsets this pass produces and the offsets of
 * the previous pass, which every jump uses to pick its size (the kernel's {@code addrs[]}).
 */
final class JitContext {
    /** What the compile found before emitting: the same for every pass. */
    final CompileFacts facts;
    final String programName;
    final Insn[] insns;
    final List<FunctionSpan> functions;
    final Map<Integer, HelperBinding> helpers;
    final FunctionFrame[] frames;
    final boolean forceLongJumps;
    /** The main program is also called as a function: a separate entry trampoline does the entry work. */
    final boolean entryTrampoline;
    /** Offset of the trampoline's {@code leave} (when there is one). */
    int trampolineLeave;

    final CodeBuffer buf = new CodeBuffer();
    final X86Encoder e = new X86Encoder(buf);

    /** Offsets of each slot in this pass and the previous one (swapped with the copy's while the guarded copy is emitted). */
    int[] start, end;
    int[] prevStart, prevEnd;
    /** The main function's guarded copy (null: none): what it leaves unchecked, and its slot offsets. */
    final GuardedCopy guarded;
    int[] copyStart, copyEnd, prevCopyStart, prevCopyEnd;
    final int[] funcEntry, prevFuncEntry;
    final int[] epilogue, prevEpilogue;
    /** Per function: offset just after {@code mov rbp, rsp}, and of its {@code leave}. */
    final int[] fpStart, leaveAt;
    /** Unwind rows of the stub block, absolute offsets: {start, end, CfaRule ordinal} each. */
    final List<int[]> stubRows = new ArrayList<>();
    final Map<Stub, Integer> stubs = new EnumMap<>(Stub.class);
    final Map<Stub, Integer> prevStubs;

    /** True for a load or store proven inside the current frame (StackProof): emitted unchecked. */
    boolean[] unchecked;
    /** The byte loads merged into wide loads in the variant being emitted (the copy's while in it). */
    LoadCombining.Plan combining;
    /** True while the guarded copy is being emitted (the arrays above are the copy's). */
    boolean inCopy;

    /** True for the second slot of an lddw (never a jump target). */
    final boolean[] secondSlot;

    /** Slots a backward jump targets, which start on a {@link LoopHeads#ALIGNMENT} boundary (none when turned off). */
    final boolean[] loopHeads;

    /** r1 at helper calls where a constant set it (array lookups are inlined there). */
    final CallSiteConstants callR1;

    /** Bytes of the main frame its prologue zeroes ({@link MainFrameZeroing}). */
    final int mainZeroed;

    /** The function being translated. */
    FunctionSpan current;

    /** The verifier's facts (null: an unverified program, whose checked accesses may reach any live frame). */
    final InsnAux aux;
    /**
     * No budget events are counted: the verifier bounded the program's events and the runtime enters
     * this code only with at least that much budget (JitExecutable's counting twin takes the rest).
     */
    final boolean elideBudget;

    /** True when the checked access at {@code pc} may touch a live frame: the verifier typed its base as a stack pointer. */
    boolean touchesFrames(int pc) { return facts.touchesFrames(pc); }

    /** One pass over {@code facts}; jumps are sized from {@code previous}'s offsets (null: the first pass). */
    JitContext(CompileFacts facts, boolean forceLongJumps, JitContext previous) {
        this.facts = facts;
        this.programName = facts.programName;
        this.insns = facts.insns;
        this.functions = facts.functions;
        this.helpers = facts.options.helpers();
        this.frames = facts.frames;
        this.aux = facts.options.aux();
        this.elideBudget = facts.options.elideBudget();
        this.unchecked = facts.unchecked;
        this.combining = facts.combining;
        this.guarded = facts.guarded;
        this.forceLongJumps = forceLongJumps;
        this.entryTrampoline = facts.entryTrampoline;
        this.loopHeads = facts.loopHeads;
        this.callR1 = facts.callR1;
        this.mainZeroed = facts.mainZeroed;
        this.secondSlot = facts.secondSlot;
        int n = insns.length;
        start = new int[n + 1];
        end = new int[n + 1];
        funcEntry = new int[functions.size()];
        epilogue = new int[functions.size()];
        fpStart = new int[functions.size()];
        leaveAt = new int[functions.size()];
        if (guarded != null) {
            copyStart = new int[n + 1];
            copyEnd = new int[n + 1];
            if (previous == null) {
                prevCopyStart = new int[n + 1];
                prevCopyEnd = new int[n + 1];
                for (int i = 0; i <= n; i++) { prevCopyStart[i] = (n + i) * 64 + 64; prevCopyEnd[i] = (n + i) * 64 + 128; }
            } else {
                prevCopyStart = previous.copyStart;
                prevCopyEnd = previous.copyEnd;
            }
        }
        if (previous == null) {
            // First pass: a pessimistic guess (64 bytes a slot, as the kernel starts) so jumps start long.
            prevStart = new int[n + 1];
            prevEnd = new int[n + 1];
            for (int i = 0; i <= n; i++) { prevStart[i] = i * 64 + 64; prevEnd[i] = i * 64 + 128; }
            prevFuncEntry = new int[functions.size()];
            prevEpilogue = new int[functions.size()];
            for (FunctionSpan f : functions) {
                prevFuncEntry[f.index()] = f.startPc() * 64;
                prevEpilogue[f.index()] = f.endPc() * 64 + 64;
            }
            prevStubs = new EnumMap<>(Stub.class);
            for (Stub s : Stub.values()) prevStubs.put(s, n * 64 + 256 + s.ordinal() * 64);
        } else {
            prevStart = previous.start;
            prevEnd = previous.end;
            prevFuncEntry = previous.funcEntry;
            prevEpilogue = previous.epilogue;
            prevStubs = previous.stubs;
        }
    }

    int pos() { return buf.size(); }

    /** True when this pass laid out every slot, function and stub where the previous one did. */
    boolean sameLayoutAs(JitContext other) {
        return Arrays.equals(start, other.start) && Arrays.equals(end, other.end)
                && Arrays.equals(copyStart, other.copyStart) && Arrays.equals(copyEnd, other.copyEnd)
                && Arrays.equals(funcEntry, other.funcEntry) && Arrays.equals(epilogue, other.epilogue)
                && stubs.equals(other.stubs);
    }

    /**
     * Switches between the main function's checked body and its guarded copy: the slot offsets
     * and the unchecked accesses become the other variant's (jumps inside the copy stay inside it).
     */
    void swapVariant() {
        int[] t = start; start = copyStart; copyStart = t;
        t = end; end = copyEnd; copyEnd = t;
        t = prevStart; prevStart = prevCopyStart; prevCopyStart = t;
        t = prevEnd; prevEnd = prevCopyEnd; prevCopyEnd = t;
        inCopy = !inCopy;
        unchecked = inCopy ? guarded.unchecked() : facts.unchecked;
        combining = inCopy ? guarded.combining() : facts.combining;
    }

    /** Offset of the guarded copy's first slot, per the previous pass. */
    int copyEntry() { return (inCopy ? prevStart : prevCopyStart)[0]; }

    BpfLoadException error(int pc, String reason) {
        return new BpfLoadException("program '" + programName + "' pc " + pc + ": " + reason);
    }

    static Mem env(int field) { return Mem.of(RegMap.ENV, field); }

    // ---- jumps that converge over passes ----------------------------------------------------

    /** Distance from the end of the instruction at {@code pc} to the start of {@code targetPc}, per the previous pass. */
    int jumpDistance(int pc, int targetPc) { return prevStart[targetPc] - prevEnd[pc]; }

    /** Distance from the end of {@code pc} to the current function's epilogue, per the previous pass. */
    int exitDistance(int pc) { return prevEpilogue[current.index()] - prevEnd[pc]; }

    /** Offset of the current function's epilogue, per the previous pass (for rel32 jumps from mid-slot). */
    int epilogueOffset() { return prevEpilogue[current.index()]; }

    /**
     * {@code jcc} (or {@code jmp} when {@code c} is null) whose end lies {@code rel} bytes before
     * its target; it must be the last bytes of the BPF instruction for {@code rel} to hold.
     */
    void jumpBy(Cond c, int rel) {
        boolean shortForm = !forceLongJumps && X86Encoder.fitsRel8(rel);
        int here = pos();
        if (c == null) {
            if (shortForm) e.jmpRel8(here + 2 + rel);
            else e.jmpRel32(here + 5 + rel);
        } else {
            if (shortForm) e.jccRel8(c, here + 2 + rel);
            else e.jccRel32(c, here + 6 + rel);
        }
    }

    /** Offset of a stub as the previous pass placed it (exact in the final pass). */
    int stub(Stub s) { return prevStubs.get(s); }

    /** Entry offset of the function that starts at {@code pc}, per the previous pass. */
    int functionEntry(int pc) {
        for (FunctionSpan f : functions) if (f.startPc() == pc) return prevFuncEntry[f.index()];
        throw new IllegalStateException("no function starts at pc " + pc);
    }

    /** {@code mov r11d, pc; jmp stub}: the shared raise path for budget and depth errors. */
    void raise(Stub s, int pc) {
        e.movImm32(RegMap.AUX2, pc);          /* mov r11d, pc */
        e.jmpRel32(stub(s));                  /* jmp stub */
    }

    /**
     * A taken jump back to {@code target}: one budget event, then the jump. The raise path comes
     * after the jump, so a running loop takes one branch per iteration ({@code sub r9, 1; jae
     * target}) instead of hopping over the raise first.
     */
    void backEdge(int pc, int target) {
        if (elideBudget) {
            jumpBy(null, jumpDistance(pc, target));                    /* jmp target */
            return;
        }
        e.aluRI(AluOp.SUB, true, RegMap.BUDGET, 1);                     /* sub r9, 1 */
        jumpBy(Cond.AE, jumpDistance(pc, target) + RAISE_BYTES);        /* jae target */
        int before = pos();
        raise(Stub.RAISE_BUDGET, pc);                                   /* mov r11d, pc; jmp raise_budget */
        if (pos() - before != RAISE_BYTES) throw new IllegalStateException("raise is " + (pos() - before) + " bytes");
    }

    /** {@code mov r11d, imm32} (6 bytes) + {@code jmp rel32} (5). */
    private static final int RAISE_BYTES = 11;

    /**
     * One budget event: {@code sub r9, 1} borrows when the budget was already used up, and the run
     * ends at {@code pc}.
     */
    void budgetEvent(int pc) {
        if (elideBudget) return;
        e.aluRI(AluOp.SUB, true, RegMap.BUDGET, 1);                      /* sub r9, 1 */
        int ok = e.jccForward8(Cond.AE);                                   /* jae ok */
        raise(Stub.RAISE_BUDGET, pc);
        e.bind(ok);
    }
}
