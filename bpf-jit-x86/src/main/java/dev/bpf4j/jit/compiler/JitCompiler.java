package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.jit.analysis.RegionProof;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.jit.analysis.StackProof;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.UnwindRow;
import dev.bpf4j.verifier.InsnAux;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Compiles a validated program to x86-64. Jump sizes converge over passes, as in the kernel: each
 * pass sizes its jumps from the previous pass's offsets until two passes agree; a final pass then
 * checks that every slot landed exactly where the converged pass predicted.
 */
public final class JitCompiler {
    private JitCompiler() {}

    private static final int MAX_PASSES = 20;
    /** {@code -Dbpf4j.jit.stackProof=false} keeps every memory check (to compare code or timings). */
    private static final boolean PROVE_STACK_ACCESSES = Switches.on("bpf4j.jit.stackProof");
    /** {@code -Dbpf4j.jit.regionProof=false}: no guarded copy, every data-buffer access keeps its check. */
    private static final boolean PROVE_REGION_ACCESSES = Switches.on("bpf4j.jit.regionProof");
    /**
     * {@code -Dbpf4j.jit.loadCombining=false}: every byte load stays a byte load. Read per compile,
     * so a benchmark can compare both forms of one program in one JVM.
     */
    private static boolean combineLoads() { return Switches.on("bpf4j.jit.loadCombining"); }

    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs) {
        return compile(program, helpers, entryArgs, false);
    }

    /** As above; {@code legacyPacketLoads} allows LD ABS/IND (LoadOptions.legacyPacketLoads). */
    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs,
                                          boolean legacyPacketLoads) {
        return compile(program, helpers, entryArgs, legacyPacketLoads, null);
    }

    /**
     * As above; {@code packetContext} (LoadOptions.packetContext, may be null) says where a
     * kernel-style ctx (entryArgs 1) holds the packet pointers, for the ctx form of the guarded copy.
     */
    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs,
                                          boolean legacyPacketLoads, PacketContext packetContext) {
        return compile(program, helpers, entryArgs, legacyPacketLoads, packetContext, null);
    }

    /**
     * As above, with the verifier's facts ({@code aux}, null for an unverified program): a checked
     * access the verifier did not type as a stack pointer is checked against the run's regions only,
     * never the frames, and a map helper is inlined only where its key and value are stack pointers.
     */
    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs,
                                          boolean legacyPacketLoads, PacketContext packetContext, InsnAux aux) {
        return compile(program, helpers, entryArgs, legacyPacketLoads, packetContext, aux, false);
    }

    /**
     * As above; {@code elideBudget}: count no budget events (back-edges, calls), for a program whose
     * events the verifier bounded, entered only with at least that budget.
     */
    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs,
                                          boolean legacyPacketLoads, PacketContext packetContext, InsnAux aux, boolean elideBudget) {
        Insn[] insns = program.toArray();
        if (insns.length == 0) throw new BpfLoadException("program '" + program.name() + "': empty program");
        if (insns.length > AccessDescriptor.MAX_PC) {
            throw new BpfLoadException("program '" + program.name() + "': " + insns.length + " slots is too long for the JIT");
        }
        EngineGuard.check(program.name(), insns, legacyPacketLoads);
        List<FunctionSpan> functions = Subprograms.split(program.name(), insns);
        FunctionFrame[] frames = new FunctionFrame[functions.size()];
        for (FunctionSpan f : functions) {
            // Every main function has the entry frame shape, even when it is also called: a tail
            // call jumps from one program's main body into another's and keeps the frame.
            frames[f.index()] = f.isMain() ? FunctionFrame.entry() : FunctionFrame.subprogram(insns, f);
        }
        boolean[] unchecked = new boolean[insns.length];
        StackProof.Budget proofBudget = new StackProof.Budget();
        for (FunctionSpan f : PROVE_STACK_ACCESSES ? functions : List.<FunctionSpan>of()) {
            boolean[] proven = StackProof.provenAccesses(insns, f.startPc(), f.endPc(), proofBudget);
            for (int pc = f.startPc(); pc < f.endPc(); pc++) unchecked[pc] |= proven[pc];
        }
        PacketContext ctx = entryArgs >= 2 ? null : entryArgs == 1 ? packetContext : null;
        GuardedCopy guarded = PROVE_REGION_ACCESSES && (entryArgs >= 2 || ctx != null) && !Subprograms.mainIsCalled(insns)
                && !movesPacket(insns)
                ? guardedCopy(insns, functions.get(0), unchecked, proofBudget, ctx) : null;
        LoadCombining.Plan combining = combine(insns, functions, unchecked);
        int[] passes = {0};
        JitContext converged = converge(program.name(), insns, functions, frames, helpers, entryArgs, false, passes, unchecked, guarded, combining, aux, elideBudget);
        if (converged == null) converged = converge(program.name(), insns, functions, frames, helpers, entryArgs, true, passes, unchecked, guarded, combining, aux, elideBudget);
        if (converged == null) throw new BpfLoadException("program '" + program.name() + "': jump sizes did not converge");
        JitContext fin = new JitContext(program.name(), insns, functions, frames, helpers, converged.forceLongJumps, converged,
                unchecked, guarded, combining, aux);
        fin.elideBudget = elideBudget;
        Translator.translate(fin, entryArgs);
        for (int pc = 0; pc <= insns.length; pc++) {
            if (fin.start[pc] != converged.start[pc]) {
                throw new IllegalStateException("program '" + program.name() + "' pc " + pc + ": JIT emitted at offset "
                        + fin.start[pc] + " but the converged pass predicted " + converged.start[pc]);
            }
        }
        if (!fin.sameLayoutAs(converged)) throw new IllegalStateException("program '" + program.name() + "': final JIT pass moved code");
        int[] uncheckedPcs = java.util.stream.IntStream.range(0, insns.length).filter(pc -> unchecked[pc]).toArray();
        int[] guardedPcs = guarded == null ? new int[0]
                : java.util.stream.IntStream.range(0, insns.length).filter(pc -> guarded.unchecked()[pc]).toArray();
        int guardedOffset = guarded == null ? -1 : fin.copyStart[0];
        int[] guardedCombined = guarded == null ? new int[0] : combinedPcs(guarded.combining());
        return new CompiledProgram(fin.buf.toByteArray(), layout(fin), passes[0] + 1, uncheckedPcs, guardedPcs, guardedOffset,
                combinedPcs(combining), guardedCombined, fin.mainZeroed, aux);
    }

    /**
     * True when the program calls a helper that may move the packet ({@code bpf_xdp_adjust_head}, ...):
     * the region proofs assume the packet bounds of the entry for the whole run, so such a program
     * keeps every packet access checked against the run's current region table.
     */
    private static boolean movesPacket(Insn[] insns) {
        for (Insn i : insns) {
            if (i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.CALL_HELPER
                    && dev.bpf4j.helpers.HelperIds.changesPacketData(i.imm())) return true;
        }
        return false;
    }

    /** The byte loads to merge in the given functions, where {@code unchecked} (and r10 + constant) leave them unchecked. */
    private static LoadCombining.Plan combine(Insn[] insns, List<FunctionSpan> functions, boolean[] unchecked) {
        LoadCombining.Plan plan = LoadCombining.Plan.empty(insns.length);
        if (!combineLoads()) return plan;
        for (FunctionSpan f : functions) {
            LoadCombining.planFunction(insns, f.startPc(), f.endPc(),
                    pc -> MemoryEmitter.isUnchecked(unchecked, pc, insns[pc].src(), insns[pc].off(), 1), plan);
        }
        return plan;
    }

    private static int[] combinedPcs(LoadCombining.Plan plan) {
        return java.util.stream.IntStream.range(0, plan.at().length).filter(pc -> plan.at()[pc] != null).toArray();
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

    private static JitContext converge(String name, Insn[] insns, List<FunctionSpan> functions, FunctionFrame[] frames,
                                       Map<Integer, HelperBinding> helpers, int entryArgs, boolean forceLong, int[] passes,
                                       boolean[] unchecked, GuardedCopy guarded, LoadCombining.Plan combining, InsnAux aux,
                                       boolean elideBudget) {
        JitContext prev = null;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            passes[0]++;
            JitContext c = new JitContext(name, insns, functions, frames, helpers, forceLong, prev, unchecked, guarded, combining, aux);
            c.elideBudget = elideBudget;
            Translator.translate(c, entryArgs);
            if (prev != null && c.sameLayoutAs(prev)) return c;
            prev = c;
        }
        return null;
    }

    private static JitLayout layout(JitContext c) {
        List<FunctionLayout> fns = new ArrayList<>();
        for (FunctionSpan f : c.functions) {
            int entry = c.funcEntry[f.index()];
            int end = c.leaveAt[f.index()] + 2; // leave; ret
            fns.add(new FunctionLayout(f.index(), f.startPc(), f.endPc(), entry, end - entry, c.fpStart[f.index()], c.leaveAt[f.index()]));
        }
        int stubStart = c.stubs.get(Stub.CALLBACK_ENTRY); // the stub block starts with the callback entry
        List<UnwindRow> rows = new ArrayList<>();
        for (int[] r : c.stubRows) rows.add(new UnwindRow(r[0] - stubStart, r[1] - stubStart, CfaRule.values()[r[2]]));
        int[] pcOffsets = c.start.clone();
        Optional<FunctionLayout> trampoline = c.entryTrampoline
                ? Optional.of(new FunctionLayout(-1, 0, 0, 0, c.trampolineLeave + 2, 4, c.trampolineLeave))
                : Optional.empty();
        return new JitLayout(fns, pcOffsets, stubStart, c.pos() - stubStart, rows, c.pos(), trampoline, guardedPcOffsets(c));
    }

    /** Main's slots in its guarded copy, then the copy's end (main's epilogue follows it); empty without a copy. */
    private static int[] guardedPcOffsets(JitContext c) {
        if (c.guarded == null) return new int[0];
        FunctionSpan main = c.functions.get(0);
        int[] out = java.util.Arrays.copyOf(c.copyStart, main.endPc() + 1);
        out[main.endPc()] = c.epilogue[main.index()];
        return out;
    }
}
