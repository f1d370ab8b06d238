package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The exploration budget one program's functions share: once spent, later functions get no proofs. */
class StackProofBudgetTest {
    /** for (i = 0; i < 64; i++) ((u32 *)(r10 - 256))[i] = i: the store at pc 7 is provable. */
    private static final Insn[] FILL = {
        new Insn(ALU64 | K | MOV, 1, 0, 0, 0), new Insn(ALU64 | X | MOV, 2, 10, 0, 0), new Insn(ALU64 | K | ADD, 2, 0, 0, -256),
        new Insn(ALU64 | X | MOV, 3, 1, 0, 0), new Insn(ALU64 | K | LSH, 3, 0, 0, 2), new Insn(ALU64 | X | MOV, 4, 2, 0, 0),
        new Insn(ALU64 | X | ADD, 4, 3, 0, 0), new Insn(STX | MEM | W, 4, 1, 0, 0),
        new Insn(ALU64 | K | ADD, 1, 0, 0, 1), new Insn(JMP | K | JLT, 1, 0, -7, 64),
        new Insn(ALU64 | K | MOV, 0, 0, 0, 0), new Insn(JMP | EXIT, 0, 0, 0, 0)};

    /**
     * A loop whose counter grows by {@code 0xffffffff}: with {@code Long.hashCode} every iteration's
     * state had the same hash (the halves of {@code k * 0xffffffff} cancel), so each was compared
     * with all before it and the exploration gave up. The store at pc 8 is provable.
     */
    @Test
    void aCounterOfCollidingLongHashesIsExploredInLinearSteps() {
        int iterations = 1000;
        long step = 0xffffffffL, end = iterations * step;
        Insn[] loop = {
            new Insn(LDDW, 9, 0, 0, (int) step), new Insn(0, 0, 0, 0, (int) (step >>> 32)),
            new Insn(LDDW, 5, 0, 0, (int) end), new Insn(0, 0, 0, 0, (int) (end >>> 32)),
            new Insn(ALU64 | K | MOV, 7, 0, 0, 0), new Insn(ALU64 | X | MOV, 2, 10, 0, 0),
            new Insn(ALU64 | X | ADD, 7, 9, 0, 0), new Insn(JMP | X | JLT, 7, 5, -2, 0),   // pc 6, 7: r7 += step while r7 < end
            new Insn(STX | MEM | DW, 2, 7, -8, 0),
            new Insn(ALU64 | K | MOV, 0, 0, 0, 0), new Insn(JMP | EXIT, 0, 0, 0, 0)};
        StackProof.Budget budget = new StackProof.Budget();
        assertThat(StackProof.provenAccesses(loop, 0, loop.length, budget)[8]).isTrue();
        assertThat(budget.comparedInVain()).as("states compared in vain").isLessThan(10);
        assertThat(budget.spent()).as("steps").isBetween((long) 2 * iterations, (long) 3 * iterations);
    }

    @Test
    void aSharedBudgetRunsOut() {
        StackProof.Budget budget = new StackProof.Budget();
        assertThat(StackProof.provenAccesses(FILL, 0, FILL.length, budget)[7]).isTrue();
        int calls = 1;
        while (StackProof.provenAccesses(FILL, 0, FILL.length, budget)[7]) {
            calls++;
            assertThat(calls).as("the budget must run out").isLessThan(StackProof.MAX_PROGRAM_STEPS);
        }
        assertThat(calls).as("one exploration costs hundreds of steps").isBetween(10, StackProof.MAX_PROGRAM_STEPS / 100);
        assertThat(StackProof.provenAccesses(FILL, 0, FILL.length)[7]).as("a fresh budget proves it again").isTrue();
    }
}
