package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.isa.Reg;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * Programs with callback functions, laid out as clang does: the main program, then each function.
 * In the builders, {@link #func} writes a placeholder {@code lddw reg, src=4} naming function k;
 * {@link #link} turns it into the pc-relative offset of that function's first slot.
 */
final class Funcs {
    private Funcs() {}

    /** {@code lddw reg, code_addr(function k)}, resolved by {@link #link}. */
    static ProgramBuilder func(ProgramBuilder b, Reg reg, int k) { return b.ldPseudo(reg, Opcodes.PSEUDO_FUNC, k, 0); }

    static Program link(String name, ProgramBuilder main, ProgramBuilder... functions) {
        List<Insn> out = new ArrayList<>(main.build(name).insns());
        int[] start = new int[functions.length];
        for (int k = 0; k < functions.length; k++) {
            start[k] = out.size();
            out.addAll(functions[k].build(name).insns());
        }
        for (int pc = 0; pc < out.size(); pc++) {
            Insn i = out.get(pc);
            if (i.opcode() == Opcodes.LDDW && i.src() == Opcodes.PSEUDO_FUNC) {
                out.set(pc, new Insn(i.opcode(), i.dst(), i.src(), i.off(), start[i.imm()] - (pc + 1)));
            }
            if (i.opcode() == Opcodes.LDDW) pc++;
        }
        return new Program(name, out);
    }
}
