package dev.bpf4j.it;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.jvm.JvmBudgetBound;
import dev.bpf4j.jvm.JvmEngine;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
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
 * The verifier's bound on a run's budget events (VerifierStats.budgetBound) and the JIT and JVM-engine
 * code that counts none where there is one: the bound holds only where every loop was explored round by
 * round and no callback or tail call runs uncounted code; it is never below the events a run really has
 * (the interpreter, which always counts, measures them); and a run, or a tail call, with less budget
 * than the bound (the counting twin) runs out where the interpreter does.
 */
class BudgetBoundTest {
    private static final LoadOptions OPTIONS = LoadOptions.defaults();
    private static final Engine INTERP = new InterpreterEngine();
    private static final Engine JIT = new JitEngine();
    private static final Engine JVM = new JvmEngine();
    private static final List<Engine> ENGINES = List.of(INTERP, JIT, JVM);

    /** r0 = sum of 0..99 plus an inner loop of 3 per round: 100 * 3 + 99 taken back-edges. */
    private static final String NESTED = """
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
    private static final String CALLS = """
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
    private static final String LONG_COUNTED = """
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
    private static final String TOO_LONG = "mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, 1000000, l\nexit";

    private static final List<String> BOUNDED = List.of(NESTED, CALLS, "mov %r0, 1\nexit", LONG_COUNTED);

    private static Program asm(String text) { return Assembler.assembleProgram("bounded", text); }

    private static VerifierStats stats(String text) { return Validator.analyze(asm(text), OPTIONS).stats(); }

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
        // a callback: bpf_loop (181) runs it up to its own limit
        try (MapTable maps = MapTable.create(List.of())) {
            Program loop = Assembler.assembleProgram("loop", "mov %r1, 10\nlddw %r2, code_addr(6)\nmov %r3, 0\n"
                    + "mov %r4, 0\ncall 181\nmov %r0, 0\nexit\nmov %r0, 0\nexit");
            assertThat(Validator.analyze(loop, OPTIONS.withHelpers(BpfHelpers.registry(maps))).stats().bounded()).isFalse();
        }
    }

    @Test
    void boundedCodeCountsNothingAndLessBudgetRunsOutOnEveryEngineAlike() {
        for (String text : BOUNDED) {
            Program p = asm(text);
            long bound = Validator.analyze(p, OPTIONS).stats().budgetBound();
            assertThat(bound).as("bound of %s", text).isNotNegative();
            long events = eventsOf(p);
            assertThat(events).as("events of %s", text).isLessThanOrEqualTo(bound);
            assertThat(codeBound(JIT, p)).as("the JIT's code counts nothing").isEqualTo(bound);
            assertThat(codeBound(JVM, p)).as("the JVM engine's code counts nothing").isEqualTo(bound);
            for (long budget : new long[] {bound, events, Math.max(0, events - 1), events / 2, 0}) {
                String interp = outcome(INTERP, p, budget);
                for (Engine e : ENGINES) assertThat(outcome(e, p, budget)).as("%s, budget %d of %s", e.name(), budget, text).isEqualTo(interp);
            }
            for (Engine e : ENGINES) {
                assertThat(outcome(e, p, bound)).as(e.name()).startsWith("r0=");
                if (events > 0) assertThat(outcome(e, p, events - 1)).as(e.name()).startsWith("BUDGET_EXCEEDED@");
            }
        }
    }

    @Test
    void withoutTheSwitchesTheCodeCounts() {
        System.setProperty("bpf4j.jit.elideBudget", "false");
        System.setProperty("bpf4j.jvm.elideBudget", "false");
        try {
            assertThat(codeBound(JIT, asm(NESTED))).isEqualTo(-1);
            assertThat(codeBound(JVM, asm(NESTED))).isEqualTo(-1);
        } finally {
            System.clearProperty("bpf4j.jit.elideBudget");
            System.clearProperty("bpf4j.jvm.elideBudget");
        }
    }

    /** A tail call carries the budget left: with less than the target's bound it enters the counting twin. */
    @Test
    void aTailCallWithLittleBudgetLeftRunsOutWhereTheInterpreterDoes() {
        Program target = asm(NESTED);
        long events = eventsOf(target); // 399 back-edges
        for (long left : new long[] {events + 1000, events, events - 1, 10, 0}) {
            long budget = 19 + left; // the spinner spends 19 back-edges, the tail call none
            String interp = tailCallOutcome(INTERP, target, budget);
            for (Engine e : ENGINES) assertThat(tailCallOutcome(e, target, budget)).as("%s, budget left %d", e.name(), left).isEqualTo(interp);
            if (left < events) assertThat(interp).startsWith("BUDGET_EXCEEDED@bounded:");
            else assertThat(interp).isEqualTo("r0=" + Long.toHexString(4950 + 300));
        }
    }

    /** The bound {@code engine}'s code for the verified {@code p} relies on: -1 where it counts every event. */
    private static long codeBound(Engine engine, Program p) {
        try (Executable x = Bpf.load(p, engine, OPTIONS)) {
            return budgetBound(x);
        }
    }

    private static long budgetBound(Executable x) {
        return x instanceof JitExecutable j ? j.budgetBound() : JvmBudgetBound.of(x);
    }

    /** A widened loop keeps its counting code: every engine runs out of budget at the same pc, or all finish. */
    @Test
    void aWidenedLoopLoadsAndCountsOnEveryEngine() {
        Program p = asm(TOO_LONG); // loaded once per engine: each load explores a million instructions first
        try (Executable interp = Bpf.load(p, INTERP, OPTIONS); Executable jit = Bpf.load(p, JIT, OPTIONS);
             Executable jvm = Bpf.load(p, JVM, OPTIONS)) {
            assertThat(budgetBound(jit)).isEqualTo(-1);
            assertThat(budgetBound(jvm)).isEqualTo(-1);
            for (long budget : new long[] {0, 4096, 999_998, 999_999, 1_000_000}) {
                String expected = outcome(interp, budget);
                assertThat(outcome(jit, budget)).as("jit, budget %d", budget).isEqualTo(expected);
                assertThat(outcome(jvm, budget)).as("jvm, budget %d", budget).isEqualTo(expected);
            }
            assertThat(outcome(jit, 999_998)).startsWith("BUDGET_EXCEEDED@");
            assertThat(outcome(jit, 999_999)).isEqualTo("r0=1000000");
        }
    }

    /** The fewest budget units a run of {@code p} needs on the interpreter (which always counts). */
    private static long eventsOf(Program p) {
        long lo = 0, hi = 1_000_000;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (outcome(INTERP, p, mid).startsWith("r0=")) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

    private static String outcome(Engine engine, Program p, long budget) {
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

    /** Spins 19 back-edges, then tail-calls slot 0 of the prog array {@code jmp}; r0 = 0xfa11 if it falls through. */
    private static Program spinThenTailCall(long jmp) {
        return new ProgramBuilder()
                .mov64(R6, R1).mov64(R7, 0)
                .label("spin").add64(R7, 1).jlt(R7, 20, "spin")
                .mov64(R1, R6).lddw(R2, jmp).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, 0xfa11).exit().build("spinner");
    }

    private static String tailCallOutcome(Engine engine, Program target, long budget) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 1, 0)))) {
            LoadOptions o = OPTIONS.withHelpers(BpfHelpers.registry(maps));
            try (Executable t = Bpf.load(target, engine, o); Executable m = Bpf.load(spinThenTailCall(maps.handle("jmp")), engine, o)) {
                ((ProgArrayMap) maps.map("jmp").orElseThrow()).set(0, t, 0);
                if (engine != INTERP) assertThat(budgetBound(t)).as(engine.name()).isNotNegative();
                return "r0=" + Long.toHexString(m.run(RunContext.builder().budget(budget).build()));
            } catch (BpfRuntimeException e) {
                return e.kind() + "@" + e.program() + ":" + e.pc();
            }
        }
    }
}
