package dev.bpf4j.asm;

import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.Insn;
import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bpf4j.program.Program;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgramBuilderTest {
    @Test
    void buildsTheDocumentedExample() {
        Program p = new ProgramBuilder().mov64(R0, 1).jeq(R1, 0, "out").add64(R0, R1).label("out").exit().build("name");
        assertThat(p.name()).isEqualTo("name");
        assertThat(p.insns()).isEqualTo(Assembler.assemble("mov %r0, 1\njeq %r1, 0, +1\nadd %r0, %r1\nexit"));
    }

    @Test
    void resolvesBackwardJumpsLocalCallsGotolAndLddwWidth() {
        List<Insn> code = new ProgramBuilder()
                .label("top").lddw(R2, 0x1122334455667788L)
                .jne32(R2, R3, "top")
                .callLocal("fn")
                .gotol("top")
                .exit()
                .label("fn").mov32(R0, 7).exit()
                .insns();
        assertThat(code).isEqualTo(Assembler.assemble("""
                top:
                lddw %r2, 0x1122334455667788
                jne32 %r2, %r3, top
                call local fn
                ja32 top
                exit
                fn:
                mov32 %r0, 7
                exit
                """));
        assertThat(code.get(2).off()).isEqualTo(-3);
        assertThat(code.get(3).imm()).isEqualTo(2);
        assertThat(code.get(4).imm()).isEqualTo(-5);
    }

    @Test
    void coversV4AndAtomicForms() {
        List<Insn> code = new ProgramBuilder()
                .sdiv64(R0, R1).smod32(R0, 3).movsx64(R0, R1, 32).movsx32(R0, R1, 8).bswap(R0, 16).le(R0, 32).be(R0, 64)
                .ldxsx(Opcodes.H, R0, R1, -2).st(Opcodes.W, R10, -4, 9).stxb(R10, -1, R1).ldxdw(R0, R10, -8)
                .atomic(Opcodes.DW, Opcodes.ADD | Opcodes.FETCH, R10, -8, R1).atomic(Opcodes.W, Opcodes.CMPXCHG, R10, -4, R2)
                .callx(R4).call(1).neg64(R0).ldPseudo(R1, Opcodes.PSEUDO_MAP_VALUE, 3, 16)
                .insns();
        assertThat(AsmPrinter.print(code)).isEqualTo("""
                sdiv %r0, %r1
                smod32 %r0, 3
                movsx3264 %r0, %r1
                movsx832 %r0, %r1
                bswap16 %r0
                le32 %r0
                be64 %r0
                ldxsh %r0, [%r1-2]
                stw [%r10-4], 9
                stxb [%r10-1], %r1
                ldxdw %r0, [%r10-8]
                lock fetch add [%r10-8], %r1
                lock cmpxchg32 [%r10-4], %r2
                callx %r4
                call 1
                neg %r0
                lddw %r1, map_val(map_by_fd(3)) + 16
                """);
    }

    @Test
    void rejectsBadLabelsAndRanges() {
        assertThatThrownBy(() -> new ProgramBuilder().ja("nowhere").exit().build("p"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("undefined label 'nowhere'");
        assertThatThrownBy(() -> new ProgramBuilder().label("a").exit().label("a"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate label 'a'");
        ProgramBuilder far = new ProgramBuilder().ja("far");
        for (int i = 0; i < 40000; i++) far.mov64(R0, 0);
        far.label("far").exit();
        assertThatThrownBy(far::insns).isInstanceOf(IllegalStateException.class).hasMessageContaining("beyond the 16-bit offset range");
        assertThatThrownBy(() -> new ProgramBuilder().ldxw(R0, R1, 40000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit in 16 bits");
        assertThatThrownBy(() -> new ProgramBuilder().movsx32(R0, R1, 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProgramBuilder().bswap(R0, 8)).isInstanceOf(IllegalArgumentException.class);
    }
}
