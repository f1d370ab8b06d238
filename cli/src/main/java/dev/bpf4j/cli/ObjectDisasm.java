package dev.bpf4j.cli;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.asm.Disassembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.FunctionSpec;
import dev.bpf4j.btf.LineInfo;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.ProgramSpec;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.cli.jited.JitedListing;
import dev.bpf4j.cli.jited.ObjdumpX86;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.Validator;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code bpf4j disasm OBJ.o}: every program of an object, with map relocations shown by name
 * ({@code r1 = map[counts] ll}, {@code r1 = map_value[obj.data] + 8 ll}), subprogram labels and the
 * source lines of the BTF line info as comments.
 */
final class ObjectDisasm {
    private ObjectDisasm() {}

    static int run(Path file, PrintStream out) {
        BpfObjectSpec spec = BpfObjectSpec.read(file);
        Disassembler dis = Disassembler.standard();
        boolean first = true;
        for (ProgramSpec p : spec.programs()) {
            if (!first) out.println();
            first = false;
            out.println(p.name() + ": section " + p.section() + ", type " + p.type() + ", " + p.length() + " slots"
                    + (p.autoload() ? "" : " (not loaded by default)"));
            Insn[] code = p.program().toArray();
            LineInfo lastLine = null;
            for (int pc = 0; pc < code.length; ) {
                int at = pc;
                for (FunctionSpec f : p.functions()) {
                    if (f.pc() == at && at != 0) out.println(f.name() + ":");
                }
                Optional<LineInfo> line = p.lineAt(pc);
                if (line.isPresent() && line.get() != lastLine && line.get().insnIndex() == pc) {
                    lastLine = line.get();
                    out.println("; " + lastLine.location() + ": " + lastLine.sourceLine().strip());
                }
                Optional<MapReference> ref = p.mapReferenceAt(pc);
                String text = ref.map(r -> r.kind() == MapReference.Kind.MAP
                        ? "r" + code[at].dst() + " = map[" + r.mapName() + "] ll"
                        : "r" + code[at].dst() + " = map_value[" + r.mapName() + "]" + (r.offset() == 0 ? "" : " + " + r.offset()) + " ll")
                        .orElseGet(() -> dis.text(code, at));
                out.printf("%5d: %s%n", pc, text);
                pc += code[pc].isLddw() && pc + 1 < code.length ? 2 : 1;
            }
        }
        return 0;
    }

    /**
     * {@code bpf4j disasm OBJ.o --jited [--program NAME]}: each program (or the one named) loaded as
     * {@code run OBJ.o} loads it (relocated, verified, with its type's packet context), then compiled
     * by the x86-64 JIT as a load compiles it (no budget counting where the verifier bounds a run's
     * budget events) and listed beside its BPF instructions, to be read next to the kernel's
     * {@code bpftool prog dump jited} of the same object.
     */
    static int runJited(Path file, Optional<String> program, PrintStream out) {
        try (BpfObject obj = BpfObject.open(file).load(ObjectLoadOptions.engine("interp"))) {
            List<BpfProgram> programs = new ArrayList<>();
            if (program.isPresent()) programs.add(obj.program(program.get()));
            else programs.addAll(obj.programs());
            boolean first = true;
            for (BpfProgram p : programs) {
                if (!first) out.println();
                first = false;
                out.println(p.name() + ": section " + p.spec().section() + ", type " + p.type());
                // verified again for its facts and budget bound: the code is then what a load runs
                ValidatedProgram verified = Validator.analyze(p.program(), p.loadOptions());
                out.print(JitedListing.render(p.program(), new JitLoader().compile(verified, p.loadOptions()), ObjdumpX86.find()));
            }
        }
        return 0;
    }

    /** True for a file that starts with the ELF magic. */
    static boolean isElf(Path file) {
        try (var in = java.nio.file.Files.newInputStream(file)) {
            byte[] m = in.readNBytes(4);
            return m.length == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
