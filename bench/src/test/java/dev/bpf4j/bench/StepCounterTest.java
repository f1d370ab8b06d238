package dev.bpf4j.bench;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StepCounterTest {
    private static StepCounter.Steps steps(Workload w) {
        try (DataBuffer data = new DataBuffer(w.input())) {
            return new StepCounter(w.program()).run(data.address(), data.length());
        }
    }

    @Test
    void countsFollowTheCommittedBytecode() {
        // From llvm-objdump of workloads.bpf.o: the FNV-1a loop is 8 instructions per byte plus
        // 6 around it (lddw, jeq, lddw, mov, lddw before; exit after); xorshift's loop is 27
        // instructions per round plus 7. If clang output changes, these change with it.
        assertThat(steps(Workload.FNV1A).count()).isEqualTo(8L * 1500 + 6);
        assertThat(steps(Workload.XORSHIFT).count()).isEqualTo(27L * 10_000 + 7);
        // parse runs straight through: 81 slots, one of them an lddw's second half.
        assertThat(steps(Workload.PARSE).count()).isEqualTo(80);
    }

    @Test
    void lddwIsOneStepAndTakenJumpsSkip() {
        Program p = new ProgramBuilder()
                .lddw(R0, 0x1_0000_0000L)      // 1 step, 2 slots
                .mov64(R3, 3)
                .label("loop")
                .sub64(R3, 1)
                .jne(R3, 0, "loop")            // 3 rounds of 2 steps
                .ja("out")
                .mov64(R0, 0)                  // skipped
                .label("out")
                .exit()
                .build("t");
        StepCounter.Steps s = new StepCounter(p).run(0, 0);
        assertThat(s.r0()).isEqualTo(0x1_0000_0000L);
        assertThat(s.count()).isEqualTo(1 + 1 + 3 * 2 + 1 + 1);
    }

    @Test
    void refusesWhatItDoesNotModel() {
        Program call = new ProgramBuilder().call(1).exit().build("c");
        assertThatThrownBy(() -> new StepCounter(call).run(0, 0)).hasMessageContaining("pc 0").hasMessageContaining("calls");
        Program wild = new ProgramBuilder().mov64(R1, 4096).ldxdw(R0, R1, 0).exit().build("w");
        assertThatThrownBy(() -> new StepCounter(wild).run(0, 0)).hasMessageContaining("pc 1").hasMessageContaining("outside");
    }
}
