package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Jump and call targets, subprogram boundaries and the missing-exit rule. */
class ControlFlowTest {
    @Test
    void jumpPastTheEnd() {
        rejected(prog(mov(0, 0), jeq(0, 0, 2), EXIT), 1, "jump target pc 4 (pc + 1 + off=2) is outside the program [0, 3)");
    }

    @Test
    void jumpBeforeTheStart() {
        rejected(prog(mov(0, 0), ja(-3), EXIT), 1, "jump target pc -1", "outside the program");
    }

    @Test
    void gotolOutOfRangeUsesItsImmediate() {
        rejected(prog(mov(0, 0), new Insn(0x06, 0, 0, 0, 100), EXIT), 1, "jump target pc 102 (pc + 1 + imm=100)");
        rejected(prog(mov(0, 0), new Insn(0x06, 0, 0, 0, Integer.MIN_VALUE), EXIT), 1, "jump target pc -2147483646");
    }

    @Test
    void gotolWithinRangeIsAccepted() {
        accepted(prog(mov(0, 0), new Insn(0x06, 0, 0, 0, 1), mov(0, 1), EXIT));
    }

    @Test
    void callTargetOutsideTheProgram() {
        rejected(prog(callLocal(5), EXIT), 0, "call target pc 6 (pc + 1 + imm=5) is outside the program [0, 2)");
        rejected(prog(mov(0, 0), EXIT, callLocal(-4), EXIT), 2, "call target pc -1");
    }

    @Test
    void callTargetsDefineSubprograms() {
        ValidatedProgram v = accepted(prog(
                callLocal(3),          // 0: -> 4
                callLocal(4),          // 1: -> 6
                mov(0, 0),             // 2
                EXIT,                  // 3
                mov(0, 1),             // 4: subprogram 1
                EXIT,                  // 5
                mov(0, 2),             // 6: subprogram 2
                jeq(0, 0, 1),          // 7: -> 9 (r1 is not passed: r0 decides)
                ja(-3),                // 8: -> 6 (a loop inside the subprogram)
                EXIT));                // 9
        assertThat(v.subprogramStarts()).containsExactly(0, 4, 6);
        assertThat(v.subprograms()).containsExactly(new Subprogram(0, 0, 4), new Subprogram(1, 4, 6), new Subprogram(2, 6, 10));
        assertThat(v.subprogramAt(5)).isEqualTo(new Subprogram(1, 4, 6));
        assertThat(v.subprogramAt(9).index()).isEqualTo(2);
        assertThat(v.isSubprogramStart(6)).isTrue();
        assertThat(v.isSubprogramStart(7)).isFalse();
    }

    @Test
    void programWithoutCallsIsOneSubprogram() {
        ValidatedProgram v = accepted(prog(mov(0, 0), EXIT));
        assertThat(v.subprogramStarts()).containsExactly(0);
        assertThat(v.subprograms()).containsExactly(new Subprogram(0, 0, 2));
    }

    @Test
    void unboundedRecursionIsRejected() {
        // main calls itself: the verifier follows the calls until the kernel's frame limit
        rejected(prog(callLocal(-1), EXIT), 0, "the call stack of 9 frames is too deep", "call depth exceeded");
        rejected(prog(callLocal(1), EXIT, callLocal(-1), EXIT), 2, "the call stack of 9 frames is too deep");
    }

    @Test
    void jumpLeavingItsSubprogram() {
        rejected(prog(callLocal(2), ja(2), EXIT, mov(0, 0), EXIT), 1,
                "jump to pc 4 leaves subprogram 0 [0, 3)", "use call to enter another");
        rejected(prog(callLocal(1), EXIT, mov(0, 0), ja(-4), EXIT), 3, "jump to pc 0 leaves subprogram 1 [2, 5)");
    }

    @Test
    void missingExitBeforeTheNextSubprogram() {
        rejected(prog(callLocal(1), mov(0, 0), mov(0, 1), EXIT), 1,
                "missing exit", "subprogram 0 [0, 2) falls through into subprogram 1 at pc 2", "end it with exit or ja");
    }

    @Test
    void missingExitAtTheEnd() {
        rejected(prog(mov(0, 0)), 0, "missing exit", "falls through off the end of the program");
        rejected(prog(mov(0, 0), EXIT, jeq(0, 0, -2)), 2, "missing exit");
        rejected(prog(mov(0, 0), lddw(1, 1)), 2, "missing exit");
    }

    @Test
    void selfLoopIsAcceptedTheBudgetStopsIt() {
        accepted(prog(mov(0, 0), ja(-1), EXIT));
    }

    @Test
    void unconditionalJumpMayEndASubprogram() {
        accepted(prog(mov(0, 0), jeq(0, 1, 1), EXIT, ja(-2)));
    }

    @Test
    void deadCodeIsAcceptedButStillDecoded() {
        accepted(prog(mov(0, 0), EXIT, addReg(0, 7), EXIT));
        rejected(prog(mov(0, 0), EXIT, new Insn(0xff, 0, 0, 0, 0), EXIT), 2, "unknown opcode 0xff");
    }
}
