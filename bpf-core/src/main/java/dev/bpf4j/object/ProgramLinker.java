package dev.bpf4j.object;

import dev.bpf4j.btf.CoreRelocation;
import dev.bpf4j.btf.FuncInfo;
import dev.bpf4j.btf.LineInfo;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Builds each program as libbpf's {@code bpf_object__reloc_code} does: the program's own
 * instructions, then every {@code .text} subprogram it reaches appended once, depth first in call
 * order, with each bpf-to-bpf call's imm set to the pc-relative offset of the appended copy
 * ({@code imm = sub_start - (pc + 1)}). Map loads get their src set to {@code PSEUDO_MAP_FD} or
 * {@code PSEUDO_MAP_VALUE} and are listed as {@link MapReference}s; BTF func/line info follow the code.
 */
final class ProgramLinker {
    /** The kernel's BPF_COMPLEXITY_LIMIT_INSNS: no program may be longer. */
    static final int MAX_PROGRAM_INSNS = 1_000_000;
    /** Bound on all linked programs together, so a hostile object cannot exhaust the heap. */
    static final int MAX_TOTAL_INSNS = 4_000_000;

    private final ObjectContext ctx;
    private int totalInsns;

    private ProgramLinker(ObjectContext ctx) { this.ctx = ctx; }

    static List<ProgramSpec> link(ObjectContext ctx) {
        ProgramLinker linker = new ProgramLinker(ctx);
        List<ProgramSpec> out = new ArrayList<>();
        for (Function f : FunctionTable.programs(ctx)) out.add(linker.link(f));
        return out;
    }

    /** One function being scanned: its copy starts at {@code base}; {@code next} is the next instruction to look at. */
    private static final class Frame {
        final Function fn;
        final int base;
        int next;

        Frame(Function fn, int base) { this.fn = fn; this.base = base; }
    }

    private ProgramSpec link(Function main) {
        List<Insn> out = new ArrayList<>();
        Map<Function, Integer> placed = new LinkedHashMap<>();
        List<MapReference> refs = new ArrayList<>();
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(place(main, out, placed));
        while (!stack.isEmpty()) {
            Frame fr = stack.peek();
            if (fr.next >= fr.fn.length()) { stack.pop(); continue; }
            int i = fr.next;
            int idx = fr.fn.start() + i;
            int pc = fr.base + i;
            Insn insn = out.get(pc);
            CodeSection.Reloc reloc = fr.fn.code().relocs.get(idx);
            fr.next += insn.isLddw() ? 2 : 1;
            if (insn.isLddw() && reloc != null) {
                if (i + 1 >= fr.fn.length()) throw error("%s: lddw at insn %d has no second slot inside the function", fr.fn.describe(), idx);
                if (reloc instanceof CodeSection.Reloc.MapRef m) {
                    patchMapLoad(out, pc, m);
                    refs.add(new MapReference(pc, m.kind(), m.map(), m.offset(), m.symbol()));
                } else if (reloc instanceof CodeSection.Reloc.FuncAddr fa) {
                    Function target = callee(fr.fn, idx, fa.target());
                    Frame pushed = placeIfNew(target, out, placed);
                    out.set(pc, with(insn, Opcodes.PSEUDO_FUNC, placed.get(target) - pc - 1));
                    if (pushed != null) stack.push(pushed);
                }
            } else if (insn.opcode() == (Opcodes.JMP | Opcodes.CALL) && insn.src() == Opcodes.PSEUDO_CALL) {
                int targetIdx;
                if (reloc instanceof CodeSection.Reloc.Call c) {
                    targetIdx = c.target();
                } else if (fr.fn.code().section.index() == ctx.textIndex) {
                    targetIdx = idx + insn.imm() + 1; // a call between .text functions is already pc-relative
                } else {
                    throw error("%s: bpf-to-bpf call at insn %d has no relocation", fr.fn.describe(), idx);
                }
                Function target = callee(fr.fn, idx, targetIdx);
                Frame pushed = placeIfNew(target, out, placed);
                out.set(pc, with(insn, Opcodes.PSEUDO_CALL, placed.get(target) - pc - 1));
                if (pushed != null) stack.push(pushed);
            }
        }
        return spec(main, out, placed, refs);
    }

    private Function callee(Function from, int idx, long targetIdx) {
        Function target = FunctionTable.textFunctionAt(ctx, targetIdx);
        if (target == null) throw error("%s: call at insn %d targets .text instruction %d, which is in no function", from.describe(), idx, targetIdx);
        if (target.start() != targetIdx) {
            throw error("%s: call at insn %d targets .text instruction %d, inside '%s' rather than at its start", from.describe(), idx, targetIdx, target.name());
        }
        return target;
    }

    private Frame placeIfNew(Function fn, List<Insn> out, Map<Function, Integer> placed) {
        return placed.containsKey(fn) ? null : place(fn, out, placed);
    }

    private Frame place(Function fn, List<Insn> out, Map<Function, Integer> placed) {
        int base = out.size();
        if ((long) base + fn.length() > MAX_PROGRAM_INSNS) throw error("%s: the linked program would exceed %d instructions", fn.describe(), MAX_PROGRAM_INSNS);
        totalInsns += fn.length();
        if (totalInsns > MAX_TOTAL_INSNS) throw error("linked programs would exceed %d instructions in total", MAX_TOTAL_INSNS);
        for (int i = 0; i < fn.length(); i++) out.add(fn.code().insns[fn.start() + i]);
        placed.put(fn, base);
        return new Frame(fn, base);
    }

    private static Insn with(Insn i, int src, int imm) { return new Insn(i.opcode(), i.dst(), src, i.off(), imm); }

    /** libbpf before load: src = PSEUDO_MAP_FD (imm = fd) or PSEUDO_MAP_VALUE (imm = fd, imm of slot 2 = offset). */
    private static void patchMapLoad(List<Insn> out, int pc, CodeSection.Reloc.MapRef m) {
        Insn first = out.get(pc), second = out.get(pc + 1);
        boolean value = m.kind() == MapReference.Kind.VALUE;
        out.set(pc, with(first, value ? Opcodes.PSEUDO_MAP_VALUE : Opcodes.PSEUDO_MAP_FD, 0));
        out.set(pc + 1, new Insn(second.opcode(), second.dst(), second.src(), second.off(), value ? m.offset() : 0));
    }

    private ProgramSpec spec(Function main, List<Insn> out, Map<Function, Integer> placed, List<MapReference> refs) {
        List<FunctionSpec> functions = new ArrayList<>();
        List<FuncInfo> funcInfos = new ArrayList<>();
        List<LineInfo> lineInfos = new ArrayList<>();
        List<CoreRelocation> core = new ArrayList<>();
        placed.forEach((fn, base) -> {
            functions.add(new FunctionSpec(fn.name(), fn.code().name(), base, fn.length()));
            int end = fn.start() + fn.length();
            for (FuncInfo fi : ctx.btfExt.funcInfos(fn.code().name(), fn.start(), end)) {
                funcInfos.add(fi.rebase(base + fi.insnIndex() - fn.start()));
            }
            for (LineInfo li : ctx.btfExt.lineInfos(fn.code().name(), fn.start(), end)) {
                lineInfos.add(li.rebase(base + li.insnIndex() - fn.start()));
            }
            for (CoreRelocation cr : ctx.btfExt.coreRelocations(fn.code().name(), fn.start(), end)) {
                core.add(cr.rebase(base + cr.insnIndex() - fn.start()));
            }
        });
        funcInfos.sort(Comparator.comparingInt(FuncInfo::insnIndex));
        lineInfos.sort(Comparator.comparingInt(LineInfo::insnIndex));
        core.sort(Comparator.comparingInt(CoreRelocation::insnIndex));
        String section = main.code().name();
        SectionDef def = SectionDef.find(section).orElse(null);
        ProgramType type = def == null ? ProgramType.UNSPEC : def.type();
        AttachType attach = def == null ? AttachType.NONE : def.attachType();
        String target = def == null ? "" : def.attachTarget(section);
        return new ProgramSpec(main.name(), section, type, attach, target, def != null && def.sleepable(),
                new Program(main.name(), out), refs, functions, funcInfos, lineInfos, core);
    }
}
