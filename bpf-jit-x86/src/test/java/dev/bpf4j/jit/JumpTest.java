package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Conditional jumps of both classes, both source forms; ja/gotol; long and short jump forms; budget. */
class JumpTest {
    private static final int[] CONDS = {JEQ, JNE, JGT, JGE, JLT, JLE, JSGT, JSGE, JSLT, JSLE, JSET};
    private static final long[] VALUES = {0, 1, -1, 2, -2, 0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L,
            Long.MIN_VALUE, Long.MAX_VALUE, 0xffffffff00000001L};

    /** r0 = 1 when the jump is taken, else 2. */
    private static long taken(Insn jump, long a, long b) {
        Program p = prog("j", lddw(1, a), lddw(2, b), jump, mov64(0, 2), exit(), mov64(0, 1), exit());
        return Jit.run(p);
    }

    @Test
    void everyConditionBothClassesBothSources() {
        for (int op : CONDS) for (boolean w : new boolean[]{true, false}) for (long a : VALUES) {
            for (long b : VALUES) {
                boolean expect = Ref.cond(op, w, a, b);
                Insn x = new Insn((w ? JMP : JMP32) | X | op, 1, 2, 2, 0);
                assertThat(taken(x, a, b)).as("op 0x%x w=%b a=0x%x b=0x%x", op, w, a, b).isEqualTo(expect ? 1 : 2);
            }
            for (int imm : new int[]{0, 1, -1, 0x7fffffff, Integer.MIN_VALUE, 2}) {
                boolean expect = Ref.cond(op, w, a, w ? (long) imm : imm);
                Insn k = new Insn((w ? JMP : JMP32) | K | op, 1, 0, 2, imm);
                assertThat(taken(k, a, 0)).as("op 0x%x K w=%b a=0x%x imm=%d", op, w, a, imm).isEqualTo(expect ? 1 : 2);
            }
        }
    }

    @Test
    void jaAndGotolForwardAndBackward() {
        // r0 = 0; ja +1 (skip r0 += 100); gotol +1 (skip r0 += 1000); r0 += 1; loop back 3 times via counter r1.
        Program p = prog("ja", mov64(0, 0), mov64(1, 3),
                ja(1), alu64(ADD, 0, 100),
                gotol(1), alu64(ADD, 0, 1000),
                alu64(ADD, 0, 1), alu64(SUB, 1, 1),
                jmp(JNE, 1, 0, -7), // back to the "ja 1" at pc 2
                exit());
        assertThat(Jit.run(p)).isEqualTo(3);
    }

    @Test
    void longJumpsOverBigBodies() {
        // Jumps across 300 slots need rel32, short loops rel8; all must land where predicted.
        List<Object> parts = new ArrayList<>();
        parts.add(mov64(0, 0));                // 0
        parts.add(mov64(2, 5));                // 1
        parts.add(mov64(3, 0));                // 2 (flag)
        parts.add(jmp(JEQ, 0, 0, 300));        // 3 -> 304, skipping the adds
        for (int i = 0; i < 300; i++) parts.add(alu64(ADD, 0, 1000)); // 4..303
        parts.add(alu64(ADD, 0, 1));           // 304
        parts.add(alu64(SUB, 2, 1));           // 305
        parts.add(jmp(JNE, 2, 0, -3));         // 306 -> 304 (5 times)
        parts.add(jmp(JEQ, 3, 0, 1));          // 307 -> 309 first time
        parts.add(exit());                     // 308
        parts.add(mov64(3, 1));                // 309
        parts.add(mov64(2, 1));                // 310
        parts.add(ja(-308));                   // 311 -> 4: run the adds once
        Program p = prog("long", parts.toArray());
        assertThat(Jit.run(p)).isEqualTo(5 + 300_000 + 1);
    }

    @Test
    void budgetCountsTakenBackEdgesOnly() {
        // 10 iterations: 9 taken back-edges... the loop below takes the back-edge 10 times.
        Program p = prog("loop", mov64(0, 0), mov64(1, 10),
                alu64(ADD, 0, 1), alu64(SUB, 1, 1), jmp(JNE, 1, 0, -3), exit());
        assertThat(Jit.run(p, LoadOptions.defaults(), RunContext.builder().budget(9).build())).isEqualTo(10);
        assertThatThrownBy(() -> Jit.run(p, LoadOptions.defaults(), RunContext.builder().budget(8).build()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
                    assertThat(e.pc()).isEqualTo(4);
                });
    }

    @Test
    void runawayLoopStops() {
        Program p = prog("spin", mov64(0, 0), ja(-1), exit());
        assertThatThrownBy(() -> Jit.run(p))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
                    assertThat(e.pc()).isEqualTo(1);
                });
        assertThatThrownBy(() -> Jit.run(prog("spin0", mov64(0, 0), ja(-1), exit()), LoadOptions.defaults(),
                RunContext.builder().budget(0).build())).isInstanceOf(BpfRuntimeException.class);
    }
}
