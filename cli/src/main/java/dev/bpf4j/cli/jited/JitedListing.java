package dev.bpf4j.cli.jited;

import dev.bpf4j.asm.Disassembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.jit.compiler.FunctionLayout;
import dev.bpf4j.jit.compiler.JitLayout;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.unwind.CodeRegion;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The machine code of a compiled program, as {@code bpftool prog dump jited linum} prints it: each
 * function (and the entry trampoline and stub block) headed by its {@code bpf_prog_<tag>_<name>}
 * symbol, every BPF instruction as a {@code ; pc N: text} comment followed by the x86 instructions
 * it became, at offsets from the image start (as jump targets are). Without a disassembler the
 * bytes are printed in hex.
 */
public final class JitedListing {
    private JitedListing() {}

    private static final int HEX_CHUNK = 16;

    /** One symbol's code: its region (offsets from the image start) and, for BPF functions, its layout. */
    private record Block(CodeRegion region, Optional<FunctionLayout> function) {}

    public static String render(Program program, CompiledProgram compiled, Optional<ObjdumpX86> objdump) {
        byte[] code = compiled.code();
        JitLayout layout = compiled.layout();
        List<Block> blocks = blocks(program, layout);
        List<X86Line> lines = objdump.flatMap(d -> d.disassemble(code)).orElseGet(() -> hexLines(code, layout, blocks));
        Insn[] insns = program.toArray();
        Disassembler bpf = Disassembler.standard();
        StringBuilder out = new StringBuilder();
        for (Block b : blocks) {
            if (out.length() > 0) out.append('\n');
            out.append(b.region().symbol()).append(":\n");
            int start = (int) b.region().start(), end = (int) b.region().end();
            List<Marker> markers = b.function().map(f -> markers(insns, layout, f, bpf)).orElse(List.of());
            int m = 0;
            for (X86Line line : lines) {
                if (line.offset() < start || line.offset() >= end) continue;
                for (; m < markers.size() && markers.get(m).offset() <= line.offset(); m++) out.append(markers.get(m).text()).append('\n');
                out.append(String.format("%5x:\t%-23s\t%s", line.offset(), line.hex(), line.text()).stripTrailing()).append('\n');
            }
            for (; m < markers.size(); m++) out.append(markers.get(m).text()).append('\n');
        }
        return out.toString();
    }

    /** A comment line printed before the machine code at {@code offset}. */
    private record Marker(int offset, String text) {}

    /**
     * The {@code ; pc N: ...} lines of one function, in address order; main's guarded copy, when it
     * has one, repeats them under a header of its own.
     */
    private static List<Marker> markers(Insn[] insns, JitLayout layout, FunctionLayout f, Disassembler bpf) {
        List<Marker> out = new ArrayList<>();
        pcLines(out, insns, f, layout.pcOffsets(), bpf);
        if (f.isMain() && layout.hasGuardedCopy()) {
            int[] copy = layout.guardedPcOffsets();
            out.add(new Marker(copy[f.startPc()], "; guarded copy: entered when the entry guard passes; proven accesses run unchecked"));
            pcLines(out, insns, f, copy, bpf);
        }
        return out;
    }

    /** One {@code ; pc N: ...} marker per instruction of {@code f}, at {@code offsets[pc]}. */
    private static void pcLines(List<Marker> out, Insn[] insns, FunctionLayout f, int[] offsets, Disassembler bpf) {
        for (int pc = f.startPc(); pc < f.endPc(); pc = next(insns, pc)) {
            out.add(new Marker(offsets[pc], "; pc " + pc + ": " + bpf.text(insns, pc)));
        }
    }

    private static int next(Insn[] insns, int pc) { return pc + (insns[pc].isLddw() && pc + 1 < insns.length ? 2 : 1); }

    /** Functions (paired with their layouts), the entry trampoline and the stub block, in address order. */
    private static List<Block> blocks(Program program, JitLayout layout) {
        List<CodeRegion> regions = JitExecutable.codeRegions(program, layout, 0);
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < regions.size(); i++) {
            out.add(new Block(regions.get(i), i < layout.functions().size() ? Optional.of(layout.functions().get(i)) : Optional.empty()));
        }
        out.sort(Comparator.comparingLong(b -> b.region().start()));
        return out;
    }

    /** Raw bytes cut at every function and instruction boundary, at most 16 to a line. */
    static List<X86Line> hexLines(byte[] code, JitLayout layout, List<Block> blocks) {
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int off : layout.pcOffsets()) cuts.add(off);
        for (int off : layout.guardedPcOffsets()) cuts.add(off);
        for (Block b : blocks) {
            cuts.add((int) b.region().start());
            cuts.add((int) b.region().end());
        }
        cuts.add(code.length);
        List<X86Line> out = new ArrayList<>();
        int at = 0;
        while (at < code.length) {
            Integer cut = cuts.higher(at);
            int end = Math.min(cut == null ? code.length : cut, at + HEX_CHUNK);
            StringBuilder hex = new StringBuilder();
            for (int i = at; i < end; i++) hex.append(i > at ? " " : "").append(String.format("%02x", code[i] & 0xff));
            out.add(new X86Line(at, hex.toString(), ""));
            at = end;
        }
        return out;
    }
}
