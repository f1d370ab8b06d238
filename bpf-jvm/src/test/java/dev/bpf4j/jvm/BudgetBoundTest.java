package dev.bpf4j.jvm;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
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
 * Code that counts no budget where the verifier bounds a run's budget events (VerifierStats.budgetBound):
 * such a program's code runs only with at least the bound; a run, or a tail call, with less goes to the
 * counting twin and runs out at the interpreter's and the JIT's pc.
 */
class BudgetBoundTest {
    private static final LoadOptions OPTIONS = LoadOptions.defaults();

    /** r0 = sum of 0..99 plus an inner loop of 3 per round: 399 taken back-edges. */
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

    /** 10,000 rounds: more than a long loop may be widened after, followed round by round within the complexity limit. */
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

    private static Program asm(String text) { return Assembler.assembleProgram("bounded", text); }

    @Test
    void boundedCodeCountsNothingAndLessBudgetRunsOutOnEveryEngineAlike() {
        for (String text : List.of(NESTED, CALLS, "mov %r0, 1\nexit", LONG_COUNTED)) {
            Program p = asm(text);
            long bound = Validator.analyze(p, OPTIONS).stats().budgetBound();
            assertThat(bound).as("bound of %s", text).isNotNegative();
            try (Executable jvm = Bpf.load(p, new JvmEngine(), OPTIONS)) {
                assertThat(((JvmExecutable) jvm).budgetBound()).isEqualTo(bound); // this code counts nothing
            }
            long events = eventsOf(p);
            assertThat(events).isLessThanOrEqualTo(bound);
            for (long budget : new long[] {bound, events, Math.max(0, events - 1), events / 2, 0}) {
                String interp = outcome(Trio.ENGINES.get(0), p, budget);
                for (Engine e : Trio.ENGINES) assertThat(outcome(e, p, budget)).as("%s, budget %d of %s", e.name(), budget, text).isEqualTo(interp);
            }
            if (events > 0) assertThat(outcome(new JvmEngine(), p, events - 1)).startsWith("BUDGET_EXCEEDED@");
        }
    }

    @Test
    void withoutTheSwitchTheCodeCounts() {
        System.setProperty("bpf4j.jvm.elideBudget", "false");
        try (Executable jvm = Bpf.load(asm(NESTED), new JvmEngine(), OPTIONS)) {
            assertThat(((JvmExecutable) jvm).budgetBound()).isEqualTo(-1);
        } finally {
            System.clearProperty("bpf4j.jvm.elideBudget");
        }
    }

    /** A tail call carries the budget left: with less than the target's bound it enters the counting twin. */
    @Test
    void aTailCallWithLittleBudgetLeftRunsOutWhereTheOtherEnginesDo() {
        Program target = asm(NESTED);
        long events = eventsOf(target);
        for (long left : new long[] {events + 1000, events, events - 1, 10, 0}) {
            long budget = 19 + left; // the spinner spends 19 back-edges, the tail call none
            String interp = tailCallOutcome(Trio.ENGINES.get(0), target, budget);
            for (Engine e : Trio.ENGINES) assertThat(tailCallOutcome(e, target, budget)).as("%s, budget left %d", e.name(), left).isEqualTo(interp);
            if (left < events) assertThat(interp).startsWith("BUDGET_EXCEEDED@bounded:");
            else assertThat(interp).isEqualTo("r0=" + Long.toHexString(4950 + 300));
        }
    }

    /** The fewest budget units a run of {@code p} needs on the interpreter (which always counts). */
    private static long eventsOf(Program p) {
        long lo = 0, hi = 1_000_000;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (outcome(Trio.ENGINES.get(0), p, mid).startsWith("r0=")) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

    private static String outcome(Engine engine, Program p, long budget) {
        try (Executable x = Bpf.load(p, engine, OPTIONS)) {
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
                if (t instanceof JvmExecutable j) assertThat(j.budgetBound()).isNotNegative();
                return "r0=" + Long.toHexString(m.run(RunContext.builder().budget(budget).build()));
            } catch (BpfRuntimeException e) {
                return e.kind() + "@" + e.program() + ":" + e.pc();
            }
        }
    }
}
