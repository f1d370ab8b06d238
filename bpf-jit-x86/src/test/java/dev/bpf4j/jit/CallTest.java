package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** bpf-to-bpf calls: frames, preserved registers, caller frames reachable, dead frames and gaps not, depth, budget. */
class CallTest {
    private static BpfRuntimeException error(Program p, RunContext c) {
        try {
            Jit.run(p, LoadOptions.defaults(), c);
        } catch (BpfRuntimeException e) {
            return e;
        }
        throw new AssertionError("no error");
    }

    @Test
    void subprogramGetsArgsKeepsCalleeSavedAndReadsCallerFrame() {
        Program p = prog("calls",
                mov64(6, 100), mov64(7, 200), mov64(8, 300), mov64(9, 400),   // 0..3
                st(DW, 10, -8, 5),                                             // 4: caller's stack slot
                mov64r(1, 10), alu64(ADD, 1, -8), mov64(2, 7),                 // 5..7
                callLocal(7),                                                  // 8 -> 16
                alu64r(ADD, 0, 6), alu64r(ADD, 0, 7), alu64r(ADD, 0, 8), alu64r(ADD, 0, 9), // 9..12
                ldx(DW, 1, 10, -8), alu64r(ADD, 0, 1), exit(),                 // 13..15
                // subprogram at 16
                mov64(6, 1), mov64(7, 2), mov64(8, 3), mov64(9, 4),            // clobber r6-r9
                ldx(DW, 0, 1, 0), alu64r(MUL, 0, 2),                           // r0 = *r1 * r2 (caller frame)
                st(DW, 1, 0, 11),                                              // *r1 = 11 (write caller frame)
                st(DW, 10, -8, 99),                                            // own frame
                exit());
        // 5 * 7 + (100 + 200 + 300 + 400) + 11
        assertThat(Jit.run(p)).isEqualTo(35 + 1000 + 11);
    }

    @Test
    void deadFrameOfAReturnedCalleeIsOutOfBounds() {
        Program p = prog("dead",
                callLocal(2),                 // 0 -> 3
                ldx(DW, 0, 0, 0),             // 1: read the callee's dead frame
                exit(),                       // 2
                st(DW, 10, -8, 1),            // 3
                mov64r(0, 10), alu64(ADD, 0, -8), exit());
        BpfRuntimeException e = error(p, RunContext.builder().build());
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(1);
    }

    @Test
    void gapBetweenFramesIsOutOfBounds() {
        // From the callee, r10 + 8 is its return address / saved rbp: not a frame.
        Program p = prog("gap", mov64r(1, 10), callLocal(1), exit(),
                mov64r(2, 10), ldx(DW, 0, 2, 8), exit());
        BpfRuntimeException e = error(p, RunContext.builder().build());
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(4);
        // Just below the caller's frame ([r1 - 512 - 8]) is the caller's saved registers.
        Program q = prog("gap2", mov64r(1, 10), callLocal(1), exit(),
                ldx(DW, 0, 1, -520), exit());
        e = error(q, RunContext.builder().build());
        assertThat(e.pc()).isEqualTo(3);
        // The whole caller frame is accessible from the callee.
        Program ok = prog("ok", st(DW, 10, -512, 7), mov64r(1, 10), callLocal(1), exit(),
                ldx(DW, 0, 1, -512), exit());
        assertThat(Jit.run(ok)).isEqualTo(7);
    }

    @Test
    void eightFramesAllowedNinthIsCallDepthExceeded() {
        // f(r1): if r1 == 0 return 0; return f(r1 - 1) + 1
        Program p = prog("rec", callLocal(1), exit(),
                jmp(JNE, 1, 0, 2), mov64(0, 0), exit(),
                mov64r(6, 1), alu64(SUB, 1, 1), callLocal(-6), alu64(ADD, 0, 1), exit());
        // main + 7 nested calls = 8 frames: recursion depth r1 = 6 makes 1 + 7 frames.
        assertThat(Jit.run(p, LoadOptions.defaults(), RunContext.builder().arg(1, 6).build())).isEqualTo(6);
        BpfRuntimeException e = error(p, RunContext.builder().arg(1, 7).build());
        assertThat(e.kind()).isEqualTo(ErrorKind.CALL_DEPTH_EXCEEDED);
        assertThat(e.pc()).isEqualTo(7);
        e = error(p, RunContext.builder().arg(1, 1000).build());
        assertThat(e.kind()).isEqualTo(ErrorKind.CALL_DEPTH_EXCEEDED);
    }

    @Test
    void callsCountAgainstTheBudgetBeforeDepth() {
        Program p = prog("rec", callLocal(1), exit(),
                jmp(JNE, 1, 0, 2), mov64(0, 0), exit(),
                mov64r(6, 1), alu64(SUB, 1, 1), callLocal(-6), alu64(ADD, 0, 1), exit());
        // 1 + 3 calls with budget 3: the 4th call (pc 7) exceeds it.
        BpfRuntimeException e = error(p, RunContext.builder().arg(1, 3).budget(3).build());
        assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(e.pc()).isEqualTo(7);
        assertThat(Jit.run(p, LoadOptions.defaults(), RunContext.builder().arg(1, 3).budget(4).build())).isEqualTo(3);
        // Budget exhausted exactly at a call that would also exceed the depth: budget wins.
        e = error(p, RunContext.builder().arg(1, 7).budget(7).build());
        assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThatThrownBy(() -> Jit.run(p, LoadOptions.defaults(), RunContext.builder().arg(1, 7).budget(8).build()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, x -> assertThat(x.kind()).isEqualTo(ErrorKind.CALL_DEPTH_EXCEEDED));
    }

    @Test
    void mainProgramMayCallItself() {
        // main(r1): if r1 == 0 return 100; return main(r1 - 1) + r1 — the entry trampoline does the entry work.
        Program p = prog("selfcall", mov64r(6, 1), jmp(JNE, 1, 0, 2), mov64(0, 100), exit(),
                alu64(SUB, 1, 1), callLocal(-6), alu64r(ADD, 0, 6), exit());
        assertThat(Jit.run(p, LoadOptions.defaults(), RunContext.builder().arg(1, 5).build())).isEqualTo(100 + 15);
        BpfRuntimeException e = error(p, RunContext.builder().arg(1, 8).build());
        assertThat(e.kind()).isEqualTo(ErrorKind.CALL_DEPTH_EXCEEDED);
        assertThat(e.pc()).isEqualTo(5);
        // Errors from deep inside restore the trampoline's registers: the next run still works.
        assertThat(Jit.run(p, LoadOptions.defaults(), RunContext.builder().arg(1, 1).build())).isEqualTo(101);
        try (var x = Jit.LOADER.load(p, LoadOptions.defaults())) {
            assertThat(x.layout().entryTrampoline()).isPresent();
            assertThat(x.codeRegions()).extracting(dev.bpf4j.unwind.CodeRegion::symbol).anyMatch(s -> s.endsWith("_selfcall__entry"));
        }
    }

    @Test
    void callerFramesStayReachableWhenMainCallsItself() {
        // main(r1 = depth, r2 = pointer into the outermost frame or 0):
        //   outermost: *(r10 - 8) = 40, r2 = r10 - 8; inner levels add 1 to *r2; the deepest returns *r2.
        Program p = prog("selfstack",
                mov64r(6, 1),                                   // 0
                jmp(JNE, 2, 0, 3),                              // 1: r2 != 0 -> 5
                st(DW, 10, -8, 40), mov64r(2, 10), alu64(ADD, 2, -8), // 2..4: outermost sets up its slot
                ldx(DW, 3, 2, 0), alu64(ADD, 3, 1), stx(DW, 2, 3, 0), // 5..7: *r2 += 1 through the chain
                jmp(JNE, 6, 0, 2),                              // 8: depth left -> 11
                ldx(DW, 0, 2, 0), exit(),                       // 9..10
                mov64r(1, 6), alu64(SUB, 1, 1), callLocal(-14), exit()); // 11..14: main(depth - 1, r2)
        // depth 6: 7 frames, each adds 1: 40 + 7
        assertThat(Jit.run(p, LoadOptions.defaults().withEntryArgs(2), RunContext.builder().arg(1, 6).build())).isEqualTo(47);
    }
}
