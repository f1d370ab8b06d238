package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.UnwindRow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Compiles a validated program to x86-64. Jump sizes converge over passes, as in the kernel: each
 * pass sizes its jumps from the previous pass's offsets until two passes agree; a final pass then
 * checks that every slot landed exactly where the converged pass predicted.
 */
public final class JitCompiler {
    private JitCompiler() {}

    private static final int MAX_PASSES = 20;

    /** An unverified program without legacy packet loads, packet context or budget elision. */
    public static CompiledProgram compile(Program program, Map<Integer, HelperBinding> helpers, int entryArgs) {
        return compile(program, CompileOptions.of(helpers, entryArgs));
    }

    public static CompiledProgram compile(Program program, CompileOptions options) {
        CompileFacts facts = CompileFacts.of(program, options);
        int[] passes = {0};
        JitContext converged = converge(facts, false, passes);
        if (converged == null) converged = converge(facts, true, passes);
        if (converged == null) throw new BpfLoadException("program '" + facts.programName + "': jump sizes did not converge");
        JitContext fin = new JitContext(facts, converged.forceLongJumps, converged);
        Translator.translate(fin, options.entryArgs());
        for (int pc = 0; pc <= facts.insns.length; pc++) {
            if (fin.start[pc] != converged.start[pc]) {
                throw new IllegalStateException("program '" + facts.programName + "' pc " + pc + ": JIT emitted at offset "
                        + fin.start[pc] + " but the converged pass predicted " + converged.start[pc]);
            }
        }
        if (!fin.sameLayoutAs(converged)) throw new IllegalStateException("program '" + facts.programName + "': final JIT pass moved code");
        return new CompiledProgram(fin.buf.toByteArray(), layout(fin), passes[0] + 1, proofSites(fin), fin.mainZeroed, options.aux());
    }

    private static ProofSites proofSites(JitContext fin) {
        CompileFacts f = fin.facts;
        GuardedCopy guarded = f.guarded;
        return new ProofSites(pcs(f.unchecked),
                guarded == null ? new int[0] : pcs(guarded.unchecked()),
                guarded == null ? -1 : fin.copyStart[0],
                combinedPcs(f.combining),
                guarded == null ? new int[0] : combinedPcs(guarded.combining()));
    }

    private static int[] pcs(boolean[] marked) { return IntStream.range(0, marked.length).filter(pc -> marked[pc]).toArray(); }

    private static int[] combinedPcs(LoadCombining.Plan plan) {
        return IntStream.range(0, plan.at().length).filter(pc -> plan.at()[pc] != null).toArray();
    }

    private static JitContext converge(CompileFacts facts, boolean forceLong, int[] passes) {
        JitContext prev = null;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            passes[0]++;
            JitContext c = new JitContext(facts, forceLong, prev);
            Translator.translate(c, facts.options.entryArgs());
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
