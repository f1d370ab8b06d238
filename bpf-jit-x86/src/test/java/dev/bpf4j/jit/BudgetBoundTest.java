package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierStats;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Reg.R0;
import static dev.bpf4j.isa.Reg.R1;
import static dev.bpf4j.isa.Reg.R2;
import static dev.bpf4j.isa.Reg.R3;
import static dev.bpf4j.isa.Reg.R6;
import static dev.bpf4j.isa.Reg.R7;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verifier's bound on a run's budget events (VerifierStats.budgetBound) and the JIT code that
 * counts none where there is one: the bound holds only where every loop was explored round by round
 * and no callback or tail call runs uncounted code; it is never below the events a run really has;
 * and a run with less budget than the bound (the JIT's counting twin) runs out where the
 * interpreter does.
 */
class BudgetBoundTest {
    private static final LoadOptions OPTIONS = LoadOptions.defaults();

    static Program asm(String text) { return Assembler.assembleProgram("bounded", text); }

    /** r0 = sum of 0..99 with a nested inner loop of 3: taken back-edges 100 * 3 + 99. */
    static final String NESTED = """
            mov %r0, 0
            mov %r1, 0
            outer:
            mov %r2, 0
            inner:
            add %r0, %r2
            add %r2, 1
            jlt %r2, 3, inner
            add %r0, %r1
            add %r1, 1
            jlt %r1, 100, outer
            exit
            """;

    /** A subprogram called in a loop of 20: calls are budget events too. */
    static final String CALLS = """
            mov %r6, 0
            mov %r7, 0
            again:
            mov %r1, %r6
            call local twice
            add %r7, %r0
            add %r6, 1
            jlt %r6, 20, again
            mov %r0, %r7
            exit
            twice:
            mov %r0, %r1
            lsh %r0, 1
            exit
            """;

    /**
     * 10,000 rounds of a counted loop, more than the rounds after which a long loop is widened, yet
     * followed round by round in 50,000 processed instructions, well within the complexity limit.
     */
    static final String LONG_COUNTED = """
            mov %r0, 1
            mov %r1, 0
            l:
            mul %r0, 33
            xor %r0, %r1
            add %r1, 1
            jlt %r1, 10000, l
            exit
            """;

    /** A counted loop whose round-by-round exploration would pass the complexity limit (3 million instructions). */
    static final String TOO_LONG = "mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, 1000000, l\nexit";

    static VerifierStats stats(String text) { return Validator.analyze(asm(text), OPTIONS).stats(); }

    @Test
    void boundedWhereEveryLoopWasExploredRoundByRound() {
        assertThat(stats("mov %r0, 1\nexit").budgetBound()).isEqualTo(2);
        assertThat(stats(NESTED).bounded()).isTrue();
        assertThat(stats(CALLS).bounded()).isTrue();
        // past the rounds a long loop may be widened after, but within the complexity limit: followed to its end, as Linux does
        assertThat(stats(LONG_COUNTED).bounded()).isTrue();
        assertThat(stats("mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, 100000, l\nexit").bounded()).isTrue();
    }

    @Test
    void noBoundWhereALoopWasCutShortOrOtherCodeRuns() {
        // a loop the verifier prunes against its own earlier round: the budget stops it at run time
        assertThat(stats("mov %r0, 0\nl:\nja l\nexit").bounded()).isFalse();
        // rounds that depend on the input (r1 unknown): widened
        assertThat(stats("mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, %r1, l\nexit").bounded()).isFalse();
        // more rounds than the complexity limit lets the verifier follow one by one: widened, and still accepted
        assertThat(stats(TOO_LONG).bounded()).isFalse();
        // a callback: bpf_loop runs it up to its own limit
        try (MapTable maps = MapTable.create(List.of())) {
            LoadOptions o = OPTIONS.withHelpers(BpfHelpers.registry(maps));
            Program loop = CallbackTest.loop(10, -1, 0);
            assertThat(Validator.analyze(loop, o).stats().bounded()).isFalse();
        }
    }

    @Test
    void theBoundIsNeverBelowARunsEventsAndBothEnginesRunOutAlike() {
        for (String text : List.of(NESTED, CALLS, "mov %r0, 1\nexit", LONG_COUNTED)) {
            Program p = asm(text);
            long bound = Validator.analyze(p, OPTIONS).stats().budgetBound();
            assertThat(bound).as("bound of %s", text).isNotNegative();
            long events = eventsOf(p);
            assertThat(events).as("events of %s", text).isLessThanOrEqualTo(bound);
            try (Executable jit = Bpf.load(p, Jit.ENGINE, OPTIONS)) {
                assertThat(((JitExecutable) jit).budgetBound()).isEqualTo(bound); // the code counts nothing
            }
            for (long budget : new long[]{bound, events, Math.max(0, events - 1), events / 2, 0}) {
                assertThat(outcome(Jit.ENGINE, p, budget)).as("budget %d of %s", budget, text)
                        .isEqualTo(outcome(Both.INTERP, p, budget));
            }
            assertThat(outcome(Jit.ENGINE, p, bound)).startsWith("r0=");
            if (events > 0) assertThat(outcome(Jit.ENGINE, p, events - 1)).startsWith("BUDGET_EXCEEDED@");
        }
    }

    /** A widened loop keeps its counting code: both engines run out of budget at the same pc, or both finish. */
    @Test
    void aWidenedLoopLoadsAndCountsOnBothEngines() {
        Program p = asm(TOO_LONG); // loaded once per engine: each load explores a million instructions first
        try (Executable jit = Bpf.load(p, Jit.ENGINE, OPTIONS); Executable interp = Bpf.load(p, Both.INTERP, OPTIONS)) {
            assertThat(((JitExecutable) jit).budgetBound()).isEqualTo(-1);
            for (long budget : new long[]{0, 4096, 999_998, 999_999, 1_000_000}) {
                assertThat(outcome(jit, budget)).as("budget %d", budget).isEqualTo(outcome(interp, budget));
            }
            assertThat(outcome(jit, 999_998)).startsWith("BUDGET_EXCEEDED@");
            assertThat(outcome(jit, 999_999)).isEqualTo("r0=1000000");
        }
    }

    /** The fewest budget units a run of {@code p} needs on the interpreter (which always counts). */
    static long eventsOf(Program p) {
        long lo = 0, hi = 1_000_000;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (outcome(Both.INTERP, p, mid).startsWith("r0=")) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

    static String outcome(Engine engine, Program p, long budget) {
        try (Executable x = Bpf.load(p, engine, OPTIONS)) {
            return outcome(x, budget);
        }
    }

    static String outcome(Executable x, long budget) {
        try {
            return "r0=" + x.run(RunContext.builder().budget(budget).build());
        } catch (BpfRuntimeException e) {
            assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
            return e.kind() + "@" + e.pc();
        }
    }

    /** Spins {@code rounds} back-edges, then tail-calls slot 0 of the prog array {@code jmp}; r0 = 0xfa11 if it falls through. */
    static Program spinThenTailCall(long jmp, int rounds) {
        return new ProgramBuilder()
                .mov64(R6, R1).mov64(R7, 0)
                .label("spin").add64(R7, 1).jlt(R7, rounds, "spin")
                .mov64(R1, R6).lddw(R2, jmp).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, 0xfa11).exit().build("spinner");
    }

    /** A tail call carries the budget left: with less than the target's bound it enters the counting twin. */
    @Test
    void aTailCallWithLittleBudgetLeftRunsOutWhereTheInterpreterDoes() {
        Program target = asm(NESTED);
        long events = eventsOf(target); // 399 back-edges
        for (long left : new long[]{events + 1000, events, events - 1, 10, 0}) {
            long budget = 19 + left; // the spinner spends 19 back-edges, the tail call none
            String interp = tailCallOutcome(Both.INTERP, target, budget);
            assertThat(tailCallOutcome(Jit.ENGINE, target, budget)).as("budget left %d", left).isEqualTo(interp);
            if (left < events) assertThat(interp).startsWith("BUDGET_EXCEEDED@bounded:");
            else assertThat(interp).isEqualTo("r0=" + Long.toHexString(4950 + 300));
        }
    }

    static String tailCallOutcome(Engine engine, Program target, long budget) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 1, 0)))) {
            LoadOptions o = OPTIONS.withHelpers(BpfHelpers.registry(maps));
            try (Executable t = Bpf.load(target, engine, o); Executable m = Bpf.load(spinThenTailCall(maps.handle("jmp"), 20), engine, o)) {
                ((ProgArrayMap) maps.map("jmp").orElseThrow()).set(0, t, 0);
                if (engine == Jit.ENGINE) assertThat(((JitExecutable) t).budgetBound()).isGreaterThanOrEqualTo(0);
                return "r0=" + Long.toHexString(m.run(RunContext.builder().budget(budget).build()));
            } catch (BpfRuntimeException e) {
                return e.kind() + "@" + e.program() + ":" + e.pc();
            }
        }
    }
}
