package dev.bpf4j.kernel;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** The rewriting the kernel engine does, checked without the kernel. */
class KernelTranslationTest {
    static final int REGION_FD = 11, R0_FD = 12;

    static Program asm(String text) { return Assembler.assembleProgram("t", text); }

    @Test void prologueEpilogueAndOnlyMainExitsRewritten() {
        Program p = asm("""
                call local f
                jeq r0, 0, +1
                exit
                exit
                f:
                mov r0, 1
                exit""");
        RunLayout.Key key = new RunLayout.Key(List.of(new RunLayout.Shape(16, true)),
                List.of(new RunLayout.InRegion(0, 4), new RunLayout.Constant(0x1_0000_0010L)));
        Insn[] t = KernelTranslation.translate(p, key, new int[] {REGION_FD}, R0_FD);
        // r1 = map_value(11, +4); r2 = 0x100000010
        assertThat(t[0]).isEqualTo(new Insn(LDDW, 1, PSEUDO_MAP_VALUE, 0, REGION_FD));
        assertThat(t[1]).isEqualTo(new Insn(0, 0, 0, 0, 4));
        assertThat(t[2]).isEqualTo(new Insn(LDDW, 2, PSEUDO_IMM64, 0, 0x10));
        assertThat(t[3]).isEqualTo(new Insn(0, 0, 0, 0, 1));
        assertThat(t[4]).isEqualTo(new Insn(JMP | JA, 0, 0, 4, 0));
        // epilogue at 5: r1 = map_value(12, 0); *(u64 *)(r1 + 0) = r0; exit
        assertThat(t[5]).isEqualTo(new Insn(LDDW, 1, PSEUDO_MAP_VALUE, 0, R0_FD));
        assertThat(t[7]).isEqualTo(new Insn(STX | MEM | DW, 1, 0, 0, 0));
        assertThat(t[8]).isEqualTo(new Insn(JMP | EXIT, 0, 0, 0, 0));
        int base = 9;
        assertThat(t[base]).isEqualTo(p.insn(0));                        // call local: offset unchanged
        assertThat(t[base + 1]).isEqualTo(p.insn(1));
        assertThat(t[base + 2]).isEqualTo(new Insn(JMP | JA, 0, 0, 5 - (base + 3), 0));
        assertThat(t[base + 3]).isEqualTo(new Insn(JMP | JA, 0, 0, 5 - (base + 4), 0));
        assertThat(t[base + 5]).isEqualTo(p.insn(5));                    // the subprogram's exit stays
        assertThat(t).hasSize(base + p.length());
    }

    @Test void mainProgramEndsAtTheFirstSubprogram() {
        assertThat(KernelTranslation.mainProgramEnd(asm("mov r0, 0\nexit"))).isEqualTo(2);
        assertThat(KernelTranslation.mainProgramEnd(asm("call local g\nexit\nf:\nexit\ng:\ncall local f\nexit"))).isEqualTo(2);
        // lddw second slots that look like an exit are data, not exits
        List<Insn> raw = List.of(new Insn(LDDW, 0, 0, 0, 1), new Insn(0, 0, 0, 0, 0), new Insn(JMP | EXIT, 0, 0, 0, 0));
        Insn[] t = KernelTranslation.translate(new Program("l", raw), new RunLayout.Key(List.of(), List.of()), new int[0], R0_FD);
        assertThat(t[t.length - 3]).isEqualTo(raw.get(0));
        assertThat(t[t.length - 2]).isEqualTo(raw.get(1));
        assertThat(t[t.length - 1].opcode()).isEqualTo(JMP | JA);
    }

    @Test void farExitsUseGotol() {
        List<Insn> insns = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) insns.add(new Insn(ALU64 | MOV | K, 0, 0, 0, i));
        insns.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        Insn[] t = KernelTranslation.translate(new Program("far", insns), new RunLayout.Key(List.of(), List.of()), new int[0], R0_FD);
        Insn last = t[t.length - 1];
        assertThat(last.opcode()).isEqualTo(JMP32 | JA);
        assertThat(t.length - 1 + 1 + last.imm()).isEqualTo(1); // epilogue right after "ja +4"
    }

    @Test void layoutBindsPointersIntoRegionsAndKeepsOtherValues() {
        MemoryRegion a = new MemoryRegion("a", 0x1000, 16, true), b = new MemoryRegion("b", 0x2000, 8, false);
        RunContext ctx = RunContext.builder().region(a).region(b)
                .arg(1, 0x2004).arg(2, 0x1000).arg(3, 0x1010).arg(4, 0x2000).arg(5, 0).build();
        RunLayout l = RunLayout.of(ctx, 5);
        assertThat(l.regions()).containsExactly(b, a);
        assertThat(l.key().regions()).containsExactly(new RunLayout.Shape(8, false), new RunLayout.Shape(16, true));
        assertThat(l.key().args()).containsExactly(new RunLayout.InRegion(0, 4), new RunLayout.InRegion(1, 0),
                new RunLayout.Constant(0x1010), new RunLayout.InRegion(0, 0), new RunLayout.Constant(0));
        // Same shapes at other addresses: the same key, hence the same kernel program.
        RunContext moved = RunContext.builder().region(new MemoryRegion("a", 0x9000, 16, true)).region(new MemoryRegion("b", 0x5000, 8, false))
                .arg(1, 0x5004).arg(2, 0x9000).arg(3, 0x1010).arg(4, 0x5000).arg(5, 0).build();
        assertThat(RunLayout.of(moved, 5).key()).isEqualTo(l.key());
        assertThat(RunLayout.of(ctx, 1).key().args()).containsExactly(new RunLayout.InRegion(0, 4));
    }
}
