package dev.bpf4j.verifier;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MapShapes;
import dev.bpf4j.runtime.ReturnRange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Precision ({@link PrecisionLiveness}): pruning ignores a scalar nothing later reads, so paths that differ
 * only there meet, and never ignores one that matters. Each attack below reaches a join first with a safe
 * value and then with a harmful one in a register that is dead by the pruning point's own reading; the
 * harmful value flows on into something the verifier decides on, so it must be rejected at the same pc and
 * with the same words as without precision. Pruning that ignored every scalar would accept all of them.
 */
class PrecisionPruningTest {
    /** r1: a number the caller passes (the join's {@code jgt r1, 5} leaves it undecided). */
    private static final LoadOptions ONE_ARG = LoadOptions.defaults()
            .withHelpers(BpfHelpers.registry(MapTable.of(List.of()))).withEntryArgs(1);

    private static Program asm(String text) { return Assembler.assembleProgram("precision", text); }

    private static ValidatedProgram accepted(LoadOptions o, String text) { return Validator.analyze(asm(text), o); }

    private static void rejected(LoadOptions o, String text, int pc, String reason) {
        assertThatThrownBy(() -> Validator.analyze(asm(text), o))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.pc()).as(e.getMessage()).isEqualTo(pc);
                    assertThat(e.reason()).contains(reason);
                });
    }

    /**
     * Twenty undecided diamonds: diamond i tests bit i of r1 and shifts that bit into r2, which nothing reads
     * (r0 is the last bit tested). Compared by range, every path has its own r2 and the 2^20 paths reach the
     * complexity limit; with precision each join is covered by the state of its first arrival.
     */
    static String diamonds(int n) {
        StringBuilder b = new StringBuilder("mov r2, 0\n");
        for (int i = 0; i < n; i++) {
            b.append("mov r3, r1\nrsh r3, ").append(i).append("\nand r3, 1\nlsh r2, 1\njeq r3, 0, +1\nor r2, 1\n");
        }
        return b.append("mov r0, r3\nexit").toString();
    }

    @Test
    void twentyDiamondsAreAcceptedInFewInstructions() {
        VerifierStats stats = accepted(ONE_ARG, diamonds(20)).stats();
        assertThat(stats.processedInsns()).as(stats.toString()).isLessThan(1000);
    }

    /**
     * The join of every attack, at pc 13: the fall-through path, explored first, reaches it with r2 = -8 and
     * the jump's with r2 = 8 (r1 is compared, then dead; r9 is set on both, then counted up on the first).
     * Two jumps and eight instructions come first, so that the first path keeps its state there (the
     * kernel's add_new_state); attacks pcs are those bpf4j gave without precision.
     */
    private static final String JOIN = "ja +0\nmov r9, 0\nmov r2, 8\njgt r1, 5, +9\nmov r2, -8\n" + "add r9, 1\n".repeat(8);

    @Test
    void aDeadLookingOffsetUsedAsAStackOffsetIsStillChecked() {
        rejected(ONE_ARG, JOIN + "mov r3, r10\nadd r3, r2\nstdw [r3-8], 1\nmov r0, 0\nexit", 15, "invalid stack off=0 size=8");
    }

    @Test
    void aValueSpilledAndFilledIsStillChecked() {
        rejected(ONE_ARG, JOIN + "stxdw [r10-16], r2\nmov r2, 0\nldxdw r4, [r10-16]\nmov r3, r10\nadd r3, r4\nstdw [r3-8], 1\nmov r0, 0\nexit",
                18, "invalid stack off=0 size=8");
    }

    @Test
    void aValueABranchDecidesOnIsStillChecked() {
        // r0 is set only where r2 is -8: the path with 8 reads it unset
        rejected(ONE_ARG, JOIN + "jeq r2, 8, +1\nmov r0, 0\nexit", 15, "R0 !read_ok");
    }

    @Test
    void aHelperSizeIsStillChecked() {
        // bpf_get_current_comm(fp-8, r2 + 16): 8 bytes fit, 24 do not
        rejected(ONE_ARG, JOIN + "add r2, 16\nmov r1, r10\nadd r1, -8\ncall 16\nmov r0, 0\nexit", 16, "invalid stack off=-8 size=24");
    }

    @Test
    void aReturnValueIsStillChecked() {
        rejected(ONE_ARG.withReturnRange(new ReturnRange(-8, 0)), JOIN + "mov r0, r2\nexit", 14, "R0 has smin=8 smax=8 should have been in [-8, 0]");
    }

    @Test
    void anArgumentOfASubprogramIsStillChecked() {
        rejected(ONE_ARG, JOIN + "mov r1, r2\ncall local f\nmov r0, 0\nexit\nf:\nmov r3, r10\nadd r3, r1\nstdw [r3-8], 1\nmov r0, 0\nexit",
                19, "invalid stack off=0 size=8");
    }

    @Test
    void aCallersRegisterUsedAfterTheReturnIsStillChecked() {
        // the join happens at f's entry, where main is a caller: its r6 is needed after the call returns
        // (8 instructions and 2 jumps first, so that the first path keeps its state there)
        rejected(ONE_ARG, "mov r0, 0\n".repeat(8) + "mov r6, 8\njgt r1, 5, +1\nmov r6, -8\ncall local f\n"
                + "mov r3, r10\nadd r3, r6\nstdw [r3-8], 1\nmov r0, 0\nexit\nf:\nmov r0, 0\nexit", 14, "invalid stack off=0 size=8");
    }

    @Test
    void aValueACallbackGetsIsStillChecked() {
        // bpf_loop(1, cb, r2, 0): the callback's r2 is the context, used as a stack offset
        rejected(ONE_ARG, JOIN + "mov r3, r2\nmov r1, 1\nlddw r2, code_addr(5)\nmov r4, 0\ncall 181\nmov r0, 0\nexit\n"
                + "cb:\nmov r3, r10\nadd r3, r2\nstdw [r3-8], 1\nmov r0, 0\nexit", 23, "invalid stack off=0 size=8");
    }

    @Test
    void aMapKeyIsStillChecked() {
        // an array of 4 elements: the key 0 (first path) always finds one, no null check needed; the key 8 does not
        LoadOptions maps = ONE_ARG.withMaps(h -> h == 0x7000 ? new MapShapes.Shape(4, 8, 2, 4) : null);
        rejected(maps, "ja +0\nmov r9, 0\nmov r2, 8\njgt r1, 5, +9\nmov r2, 0\n" + "add r9, 1\n".repeat(8)
                + "stxw [r10-4], r2\nmov r2, r10\nadd r2, -4\nlddw r1, 0x7000\ncall 1\nldxdw r0, [r0+0]\nmov r0, 0\nexit", 19, "invalid mem access 'map_value_or_null'");
    }

    @Test
    void joinsThatDifferInANeededRegisterStillFork() {
        // the same diamonds, r2 stored at the end (stack bytes are compared exactly): no join may be pruned, 2^8 paths
        String stored = diamonds(8).replace("mov r0, r3\n", "stxdw [r10-8], r2\nmov r0, r3\n");
        VerifierStats needed = accepted(ONE_ARG, stored).stats(), dead = accepted(ONE_ARG, diamonds(8)).stats();
        assertThat(needed.processedInsns()).as(needed + " against " + dead).isGreaterThan(256);
        assertThat(dead.processedInsns()).as(dead.toString()).isLessThan(256);
    }

    @Test
    void livenessMarksWhatTheJoinsNeed() {
        Program p = asm(JOIN + "mov r3, r10\nadd r3, r2\nstdw [r3-8], 1\nmov r0, 0\nexit");
        Reject reject = new Reject(p.name());
        var insns = p.toArray();
        InsnForm[] forms = new SlotChecker(reject, ONE_ARG.helpers(), ValidatorFeatures.DEFAULT).check(insns);
        PrecisionLiveness live = PrecisionLiveness.of(insns, forms);
        assertThat(live.needed(13, 2)).as("r2 becomes a stack offset").isTrue();
        assertThat(live.needed(13, 1)).as("r1 is never read again").isFalse();
        assertThat(live.needed(13, 9)).as("r9 only counts itself up").isFalse();
        assertThat(live.needed(0, 1)).as("r1 is compared at pc 3").isTrue();
        assertThat(live.needed(0, 2)).as("r2 is set at pc 2").isFalse();
        assertThat(live.needed(17, 0)).as("r0 at exit").isTrue();
    }
}
