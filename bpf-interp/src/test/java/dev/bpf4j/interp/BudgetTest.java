package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Budget events are taken back-edges and local calls, counted exactly; the error names the jump or call. */
class BudgetTest {
    static RunContext budget(long n) { return RunContext.builder().budget(n).build(); }

    /** r1 = n; loop: r1 -= 1; if r1 != 0 goto loop; exit — takes the back-edge at pc 2 n - 1 times. */
    static Program countdown(int n) {
        return prog(mov(1, n), alu64i(SUB, 1, 1), jmpi(JNE, 1, 0, -2), movr(0, 1), exit());
    }

    @Test
    void runawayLoopStopsAtTheBackEdge() {
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 1, () -> Runner.run(prog(mov(0, 0), ja(-1), exit()), budget(10)));
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 2,
                () -> Runner.run(prog(mov(0, 0), alu64i(ADD, 0, 1), ja(-2), exit())));
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 0, () -> Runner.run(prog(gotol(-1), exit()), budget(5)));
    }

    @Test
    void exactlyTheBudgetIsAllowed() {
        assertThat(Runner.run(countdown(100), budget(99))).isZero();
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 2, () -> Runner.run(countdown(100), budget(98)));
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 2, () -> Runner.run(countdown(2), budget(0)));
        assertThat(Runner.run(countdown(1), budget(0))).isZero();
    }

    @Test
    void forwardJumpsAreFree() {
        assertThat(Runner.run(prog(mov(0, 1), ja(0), jmpi(JEQ, 0, 1, 1), mov(0, 5), gotol(0), exit()), budget(0)))
                .isEqualTo(1);
    }

    @Test
    void localCallsSpendBudget() {
        // StackFrameTest.recursion(3): calls at pc 1 (main), then pc 7 three times
        assertThat(Runner.run(StackFrameTest.recursion(3), budget(4))).isEqualTo(3);
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 7, () -> Runner.run(StackFrameTest.recursion(3), budget(3)));
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 1, () -> Runner.run(StackFrameTest.recursion(3), budget(0)));
    }

    @Test
    void budgetIsCheckedBeforeCallDepth() {
        int calls = Limits.MAX_CALL_FRAMES; // the 8th call would open a 9th frame
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 7,
                () -> Runner.run(StackFrameTest.recursion(Limits.MAX_CALL_FRAMES - 1), budget(calls - 1)));
        Errors.expect(ErrorKind.CALL_DEPTH_EXCEEDED, 7,
                () -> Runner.run(StackFrameTest.recursion(Limits.MAX_CALL_FRAMES - 1), budget(calls)));
    }

    @Test
    void defaultBudgetStopsAnInfiniteLoop() {
        var e = Errors.expect(ErrorKind.BUDGET_EXCEEDED, 0, () -> Runner.run(prog(ja(-1))));
        assertThat(e.getMessage()).contains(Long.toString(Limits.DEFAULT_BUDGET));
    }
}
