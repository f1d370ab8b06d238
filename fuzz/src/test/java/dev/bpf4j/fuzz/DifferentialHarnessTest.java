package dev.bpf4j.fuzz;

import dev.bpf4j.api.Engines;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DifferentialHarnessTest {
    @Test void interpreterAndJitAgreeOnEveryObservable() {
        Program p = Assembler.assembleProgram("t", """
                ldxw %r0, [%r1+0]
                add %r0, 1
                stxw [%r1+4], %r0
                exit
                """);
        DifferentialReport r = DifferentialHarness.interpAndJit().assertAgree(p, new byte[] {1, 0, 0, 0, 9, 9, 9, 9});
        assertThat(r.outcomes()).extracting(EngineOutcome::engine).containsExactly("interp", "jit");
        assertThat(r.outcomes().get(1).first().memAfter()).containsExactly(1, 0, 0, 0, 2, 0, 0, 0);
    }

    @Test void errorsAreComparedByKindPcAndBlockRelativeAddress() {
        Program p = Assembler.assembleProgram("t", "ldxdw %r0, [%r1+6]\nexit");
        DifferentialReport r = DifferentialHarness.interpAndJit().assertAgree(p, new byte[8]);
        assertThat(r.outcomes().get(0).first().ending()).isEqualTo("OUT_OF_BOUNDS at pc 0 (address mem+0x6)");
    }

    @Test void aLoadTheGateRefusesIsRejectedNotADifference() {
        Program p = Assembler.assembleProgram("t", "ldxdw %r0, [%r10+8]\nexit");
        DifferentialReport r = DifferentialHarness.interpAndJit().run(p, null);
        assertThat(r.rejected()).isTrue();
        assertThat(r.agree()).isTrue();
    }

    @Test void aDisagreementThrowsAReadableReport() {
        DifferentialHarness h = new DifferentialHarness(List.of(Engines.byName("interp"),
                new FlipR0Engine(Engines.byName("interp"), dev.bpf4j.isa.Opcodes.ALU64 | dev.bpf4j.isa.Opcodes.MOV)));
        Program p = Assembler.assembleProgram("t", "mov %r0, 6\nexit");
        assertThatThrownBy(() -> h.assertAgree(p, null)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("r0: interp r0 = 0x6, flip-interp r0 = 0x7").hasMessageContaining("mov %r0, 6");
    }
}
