package dev.bpf4j.it.verifier;

import dev.bpf4j.api.Engines;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;
import dev.bpf4j.verifier.VerifierStats;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Precision on both engines: twenty undecided diamonds whose joins differ only in dead scalars load in a
 * few hundred processed instructions (they used to reach the 1M limit) and give the same r0 on the
 * interpreter and the JIT; a join whose dead-looking value later becomes a stack offset is still refused on
 * both, at the access, with the kernel's words.
 */
class PrecisionPruningEnginesTest {
    private static final LoadOptions ONE_ARG = LoadOptions.defaults()
            .withHelpers(BpfHelpers.registry(MapTable.of(List.of()))).withEntryArgs(1);
    static List<Engine> engines;

    @BeforeAll
    static void bothEngines() {
        engines = Engines.available().stream().filter(e -> !e.name().equals("kernel")).toList();
        Assumptions.assumeTrue(engines.size() >= 2, "needs the interpreter and the JIT");
    }

    /** Diamond i shifts bit i of r1 into r2, which nothing reads; r0 is the last bit tested. */
    private static Program diamonds(int n) {
        StringBuilder b = new StringBuilder("mov r2, 0\n");
        for (int i = 0; i < n; i++) {
            b.append("mov r3, r1\nrsh r3, ").append(i).append("\nand r3, 1\nlsh r2, 1\njeq r3, 0, +1\nor r2, 1\n");
        }
        return Assembler.assembleProgram("diamonds", b.append("mov r0, r3\nexit").toString());
    }

    @Test
    void twentyDiamondsLoadAndRunAlikeOnBothEngines() {
        Program p = diamonds(20);
        VerifierStats stats = Validator.analyze(p, ONE_ARG).stats();
        assertThat(stats.processedInsns()).as(stats.toString()).isLessThan(1000);
        for (long arg : new long[] {0, 1L << 19, -1, 0x5a5a5}) {
            for (Engine e : engines) {
                try (Executable x = Bpf.load(p, e, ONE_ARG)) {
                    assertThat(x.run(RunContext.builder().arg(1, arg).build())).as(e.name() + " r1=" + arg).isEqualTo(arg >> 19 & 1);
                }
            }
        }
    }

    @Test
    void aJoinedValueUsedAsAStackOffsetIsRefusedOnBothEngines() {
        // the first path reaches pc 13 with r2 = -8 and keeps its state there (two jumps and eight instructions
        // went by), the second arrives with 8: fp + 8 - 8 is outside the frame
        Program p = Assembler.assembleProgram("offset", "ja +0\nmov r9, 0\nmov r2, 8\njgt r1, 5, +9\nmov r2, -8\n"
                + "add r9, 1\n".repeat(8) + "mov r3, r10\nadd r3, r2\nstdw [r3-8], 1\nmov r0, 0\nexit");
        for (Engine e : engines) {
            assertThatThrownBy(() -> Bpf.load(p, e, ONE_ARG).close()).as(e.name())
                    .isInstanceOfSatisfying(VerifierException.class, v -> {
                        assertThat(v.pc()).as(v.getMessage()).isEqualTo(15);
                        assertThat(v.reason()).contains("invalid stack off=0 size=8");
                    });
        }
    }
}
