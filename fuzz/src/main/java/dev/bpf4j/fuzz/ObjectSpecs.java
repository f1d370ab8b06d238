package dev.bpf4j.fuzz;

import dev.bpf4j.btf.FuncInfo;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.object.AttachType;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.FunctionSpec;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * An object {@link FuzzCase} as the {@link BpfObjectSpec} an ELF object would give, so that bpf4j's
 * object API and Linux ({@code KernelObject}) load it the same way: program {@code fuzz} (tc), maps
 * {@code m0..}, each {@code lddw rN, map[i]} a map reference, every function (targets of
 * {@code call local} and of callback {@code lddw}s) with its func_info, and for a program array the
 * second program {@code fuzz_tail}.
 */
public final class ObjectSpecs {
    private ObjectSpecs() {}

    public static final String PROGRAM = "fuzz", TAIL = "fuzz_tail", SECTION = "tc";

    public static BpfObjectSpec of(FuzzCase c) {
        ObjectShape shape = c.object();
        List<MapSpec> maps = new ArrayList<>();
        for (int i = 0; i < shape.maps().size(); i++) {
            MapDef m = shape.maps().get(i);
            MapSpec s = MapSpec.of(mapName(i), m.type(), m.keySize(), m.valueSize(), m.maxEntries(), 0);
            if (m.type() == MapType.PROG_ARRAY) s = s.withInitialSlots(Map.of(0, PROGRAM, 1, TAIL));
            maps.add(s);
        }
        List<Insn> insns = c.insns();
        List<MapReference> refs = new ArrayList<>();
        TreeSet<Integer> starts = new TreeSet<>(List.of(0));
        for (int pc = 0; pc < insns.size(); pc++) {
            Insn i = insns.get(pc);
            if (i.opcode() == LDDW && i.src() == PSEUDO_MAP_FD) {
                if (i.imm() < 0 || i.imm() >= maps.size()) throw new IllegalArgumentException("pc " + pc + ": no map " + i.imm());
                refs.add(new MapReference(pc, MapReference.Kind.MAP, mapName(i.imm()), 0, mapName(i.imm())));
            }
            boolean local = i.opcode() == (JMP | CALL) && i.src() == PSEUDO_CALL || i.opcode() == LDDW && i.src() == PSEUDO_FUNC;
            if (local) starts.add(pc + i.imm() + 1);
            if (i.opcode() == LDDW) pc++;
        }
        List<FunctionSpec> functions = new ArrayList<>();
        List<FuncInfo> funcInfos = new ArrayList<>();
        List<Integer> s = new ArrayList<>(starts);
        for (int f = 0; f < s.size(); f++) {
            int end = f + 1 < s.size() ? s.get(f + 1) : insns.size();
            functions.add(new FunctionSpec(FuncBtf.name(f), SECTION, s.get(f), end - s.get(f)));
            funcInfos.add(new FuncInfo(s.get(f), FuncBtf.typeId(f), FuncBtf.name(f)));
        }
        List<ProgramSpec> programs = new ArrayList<>();
        programs.add(program(PROGRAM, insns, refs, functions, funcInfos));
        if (shape.progArray() >= 0) {
            List<Insn> tail = List.of(new Insn(ALU64 | MOV | K, 0, 0, 0, shape.tailR0()), new Insn(JMP | EXIT, 0, 0, 0, 0));
            programs.add(program(TAIL, tail, List.of(), List.of(new FunctionSpec(TAIL, SECTION, 0, 2)),
                    List.of(new FuncInfo(0, FuncBtf.typeId(0), FuncBtf.name(0)))));
        }
        return new BpfObjectSpec("fuzz", "GPL", 0, programs, maps, FuncBtf.of(Math.max(1, s.size())));
    }

    static String mapName(int index) { return "m" + index; }

    private static ProgramSpec program(String name, List<Insn> insns, List<MapReference> refs, List<FunctionSpec> functions,
                                       List<FuncInfo> funcInfos) {
        return new ProgramSpec(name, SECTION, ProgramType.SCHED_CLS, AttachType.NONE, "", false, new Program(name, insns),
                refs, functions, funcInfos, List.of(), List.of());
    }
}
