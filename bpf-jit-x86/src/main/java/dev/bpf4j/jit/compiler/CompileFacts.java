package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.analysis.RegionProof;
import dev.bpf4j.analysis.StackProof;
import dev.bpf4j.program.CallSiteConstants;
import dev.bpf4j.engine.EngineGuard;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.verifier.InsnAux;

import java.util.List;
import java.util.Map;

/**
 * Everything one compile knows about the program before it emits a byte, found once and shared by
 * every translation pass: the functions and their frames, and per instruction what the verifier
 * ({@link InsnAux}, the kernel's {@code bpf_insn_aux_data}) and the JIT's own analyses proved.
 * A new optimisation adds its fact here, filled by the analysis that proves it, and reads it in
 * the emitter that uses it.
 */
final class CompileFacts {
    /** {@code -Dbpf4j.jit.stackProof=false} keeps every memory check (to compare code or timings). */
    private static final boolean PROVE_STACK_ACCESSES = Switches.on("bpf4j.jit.stackProof");
    /** {@code -Dbpf4j.jit.regionProof=false}: no guarded copy, every data-buffer access keeps its check. */
    private static final boolean PROVE_REGION_ACCESSES = Switches.on("bpf4j.jit.regionProof");

    final String programName;
    final Insn[] insns;
    final CompileOptions options;
    final List<FunctionSpan> functions;
    final FunctionFrame[] frames;
    /** Per pc: a load or store proven inside the current frame (StackProof), emitted unchecked. */
    final boolean[] unchecked;
    /** The main function's guarded copy (null: none). */
    final GuardedCopy guarded;
    /** Per pc: the byte loads merged into one wide load (LoadCombining). */
    final LoadCombining.Plan combining;
    /** Per pc: the second slot of an lddw (never a jump target). */
    final boolean[] secondSlot;
    /** Per pc: the target of a backward jump, placed on a {@link LoopHeads#ALIGNMENT} boundary (none when turned off). */
    final boolean[] loopHeads;
    /** r1 at helper calls where a constant set it (array lookups are inlined there). */
    final CallSiteConstants callR1;
    /** Bytes of the main frame its prologue zeroes ({@link MainFrameZeroing}). */
    final int mainZeroed;
    /** The main program is also called as a function: a separate entry trampoline does the entry work. */
    final boolean entryTrampoline;

    private CompileFacts(Program program, CompileOptions options) {
        this.programName = program.name();
        this.insns = program.toArray();
        this.options = options;
        if (insns.length == 0) throw new BpfLoadException("program '" + programName + "': empty program");
        if (insns.length > AccessDescriptor.MAX_PC) {
            throw new BpfLoadException("program '" + programName + "': " + insns.length + " slots is too long for the JIT");
        }
        if (!options.guarded()) EngineGuard.check(programName, insns, options.legacyPacketLoads());
        this.functions = Subprograms.split(programName, insns);
        this.frames = new FunctionFrame[functions.size()];
        for (FunctionSpan f : functions) {
            // Every main function has the entry frame shape, even when it is also called: a tail
            // call jumps from one program's main body into another's and keeps the frame.
            frames[f.index()] = f.isMain() ? FunctionFrame.entry() : FunctionFrame.subprogram(insns, f);
        }
        this.unchecked = new boolean[insns.length];
        StackProof.Budget proofBudget = new StackProof.Budget();
        for (FunctionSpan f : PROVE_STACK_ACCESSES ? functions : List.<FunctionSpan>of()) {
            boolean[] proven = StackProof.provenAccesses(insns, f.startPc(), f.endPc(), proofBudget);
            for (int pc = f.startPc(); pc < f.endPc(); pc++) unchecked[pc] |= proven[pc];
        }
        int entryArgs = options.entryArgs();
        PacketContext ctx = entryArgs == 1 ? options.packetContext() : null;
        this.entryTrampoline = Subprograms.mainIsCalled(insns);
        this.guarded = PROVE_REGION_ACCESSES && (entryArgs >= 2 || ctx != null) && !entryTrampoline && !RegionProof.packetMayMove(insns)
                ? guardedCopy(insns, functions.get(0), unchecked, proofBudget, ctx) : null;
        this.combining = combine(insns, functions, unchecked);
        this.secondSlot = new boolean[insns.length + 1];
        for (int pc = 0; pc < insns.length; pc++) {
            if (insns[pc].isLddw()) secondSlot[++pc] = true;
        }
        this.loopHeads = LoopHeads.enabled() ? LoopHeads.of(insns) : new boolean[insns.length + 1];
        this.callR1 = CallSiteConstants.of(insns, functions.stream().mapToInt(FunctionSpan::startPc).toArray());
        Map<Integer, HelperBinding> helpers = options.helpers();
        this.mainZeroed = MainFrameZeroing.bytes(insns, functions.get(0).endPc(), id -> HelperBinding.forwardArguments(helpers, id));
    }

    static CompileFacts of(Program program, CompileOptions options) { return new CompileFacts(program, options); }

    /** True when the checked access at {@code pc} may touch a live frame: the verifier typed its base as a stack pointer. */
    boolean touchesFrames(int pc) { return options.aux() == null || options.aux().touchesFrames(pc); }

    /**
     * The byte loads to merge in the given functions, where {@code unchecked} (and r10 + constant)
     * leave them unchecked. {@code -Dbpf4j.jit.loadCombining=false}: every byte load stays a byte
     * load; read per compile, so a benchmark can compare both forms of one program in one JVM.
     */
    private static LoadCombining.Plan combine(Insn[] insns, List<FunctionSpan> functions, boolean[] unchecked) {
        LoadCombining.Plan plan = LoadCombining.Plan.empty(insns.length);
        if (!Switches.on("bpf4j.jit.loadCombining")) return plan;
        for (FunctionSpan f : functions) {
            LoadCombining.planFunction(insns, f.startPc(), f.endPc(),
                    pc -> MemoryEmitter.isUnchecked(unchecked, pc, insns[pc].src(), insns[pc].off(), 1), plan);
        }
        return plan;
    }

    /**
     * The main function's guarded copy when RegionProof proves accesses StackProof did not (the
     * copy leaves out both kinds of checks); null when it would prove nothing more.
     */
    private static GuardedCopy guardedCopy(Insn[] insns, FunctionSpan main, boolean[] unchecked, StackProof.Budget budget,
                                           PacketContext ctx) {
        RegionProof.CtxProof ctxProof = ctx == null ? null
                : RegionProof.provenCtxAccesses(insns, main.startPc(), main.endPc(), ctx.dataOffset(), ctx.dataEndOffset(), budget);
        boolean[] proven = ctx == null ? RegionProof.provenAccesses(insns, main.startPc(), main.endPc(), budget) : ctxProof.proven();
        boolean more = false, stores = false;
        for (int pc = main.startPc(); pc < main.endPc(); pc++) {
            if (!proven[pc]) continue;
            if (!unchecked[pc]) more = true;
            int cls = insns[pc].cls();
            if (cls == Opcodes.ST || cls == Opcodes.STX) stores = true;
        }
        return more ? new GuardedCopy(proven, stores, combine(insns, List.of(main), proven), ctx, ctx == null ? null : ctxProof.fields()) : null;
    }
}
