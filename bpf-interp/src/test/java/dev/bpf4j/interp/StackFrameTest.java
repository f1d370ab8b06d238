package dev.bpf4j.interp;

import dev.bpf4j.runtime.StackFrames;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames of bpf-to-bpf calls and the live-frame rule: r10 per frame, r6-r9 preserved, callers'
 * frames reachable through pointers; gaps, dead frames and anything below the innermost frame not.
 * Helper 1 records r1 so tests learn the frame addresses of the run.
 */
class StackFrameTest {
    final List<Long> seen = new ArrayList<>();
    final HelperRegistry record = HelperRegistry.builder().add(1, "record", (c, r1, r2, r3, r4, r5) -> {
        seen.add(r1);
        return 0;
    }).build();

    long run(Program p) {
        try (Executable e = Runner.load(p, record)) {
            return e.run(RunContext.builder().build());
        }
    }

    @Test
    void r10OutsideTheFrameIsCheckedAtRunTime() {
        BpfRuntimeException e = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 2,
                () -> run(prog(movr(1, 10), call(1), ldx(DW, 0, 10, 0), exit())));
        assertThat(e.address()).isEqualTo(seen.get(0));
    }

    @Test
    void belowTheInnermostFrame() {
        BpfRuntimeException e = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 2,
                () -> run(prog(movr(1, 10), call(1), ldx(DW, 0, 10, -520), exit())));
        assertThat(e.address()).isEqualTo(seen.get(0) - 520);
        Errors.expect(ErrorKind.OUT_OF_BOUNDS, 2,
                () -> run(prog(movr(1, 10), alu64i(ADD, 1, -513), ldx(B, 0, 1, 0), exit())));
        Errors.expect(ErrorKind.OUT_OF_BOUNDS, 0, () -> run(prog(ldx(DW, 0, 10, -516), exit())));
    }

    @Test
    void eachCallGetsAFreshFrameBelowItsCaller() {
        // 0: r1 = r10; 1: record; 2: call sub; 3: r1 = r10; 4: record; 5: exit | sub 6: r1 = r10; 7: record; 8: exit
        run(prog(movr(1, 10), call(1), callLocal(3), movr(1, 10), call(1), exit(),
                movr(1, 10), call(1), exit()));
        assertThat(seen).hasSize(3);
        assertThat(seen.get(1)).isLessThanOrEqualTo(seen.get(0) - Limits.STACK_SIZE);
        assertThat(seen.get(2)).as("caller's r10 restored").isEqualTo(seen.get(0));
    }

    @Test
    void argumentsAndResultPassThroughRegisters() {
        // main: r1..r5 = 1..5; call sub; exit | sub: r0 = r1 + r2 + r3 + r4 + r5; exit
        assertThat(run(prog(mov(1, 1), mov(2, 20), mov(3, 300), mov(4, 4000), mov(5, 50000), callLocal(1), exit(),
                movr(0, 1), alu64(ADD, 0, 2), alu64(ADD, 0, 3), alu64(ADD, 0, 4), alu64(ADD, 0, 5), exit())))
                .isEqualTo(54321);
    }

    @Test
    void calleeSavedRegistersArePreserved() {
        // main: r6..r9 = 6..9; call sub; r0 = r6 + r7 + r8 + r9; exit | sub: r6..r9 = 100; r0 = 0; exit
        assertThat(run(prog(mov(6, 6), mov(7, 7), mov(8, 8), mov(9, 9), callLocal(5),
                movr(0, 6), alu64(ADD, 0, 7), alu64(ADD, 0, 8), alu64(ADD, 0, 9), exit(),
                mov(6, 100), mov(7, 100), mov(8, 100), mov(9, 100), mov(0, 0), exit())))
                .isEqualTo(30);
    }

    @Test
    void calleeReadsAndWritesTheCallersFrameThroughAPointer() {
        // main: [r10-8] = 77; r1 = r10 - 8; call sub; r0 += [r10-8]; exit | sub: r0 = [r1]; [r1] = 1000; exit
        assertThat(run(prog(st(DW, 10, -8, 77), movr(1, 10), alu64i(ADD, 1, -8), callLocal(3),
                ldx(DW, 2, 10, -8), alu64(ADD, 0, 2), exit(),
                ldx(DW, 0, 1, 0), st(DW, 1, 0, 1000), exit())))
                .isEqualTo(1077);
    }

    @Test
    void theGapBetweenFramesIsOutOfBounds() {
        // sub: r1 = r10; record; r0 = [r1 + off]; exit
        int gap = StackFrames.GAP;
        Program straddle = prog(callLocal(1), exit(), movr(1, 10), call(1), ldx(DW, 0, 1, 0), exit());
        BpfRuntimeException e = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 4, () -> run(straddle));
        assertThat(e.address()).isEqualTo(seen.get(0));
        Errors.expect(ErrorKind.OUT_OF_BOUNDS, 4,
                () -> run(prog(callLocal(1), exit(), movr(1, 10), call(1), ldx(DW, 0, 1, gap - 4), exit())));
        // the caller's frame starts right after the gap and is live
        assertThat(run(prog(st(DW, 10, -512, 5), callLocal(1), exit(), movr(1, 10), call(1), ldx(DW, 0, 1, gap), exit())))
                .isEqualTo(5);
    }

    @Test
    void aReturnedCalleesFrameIsDead() {
        // main: call sub; r1 = r0; r0 = [r1 - 8]; exit | sub: [r10-8] = 1; r0 = r10; exit
        BpfRuntimeException e = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 3,
                () -> run(prog(callLocal(4), movr(1, 0), call(1), ldx(DW, 0, 1, -8), exit(),
                        st(DW, 10, -8, 1), movr(0, 10), exit())));
        assertThat(e.address()).isEqualTo(seen.get(0) - 8);
    }

    /** sub(n): if n == 0 return 0; return sub(n - 1) + 1 — n + 1 frames of sub plus main. */
    static Program recursion(int n) {
        return prog(mov(1, n), callLocal(1), exit(),
                /* 3 */ jmpi(JNE, 1, 0, 2), mov(0, 0), exit(),
                /* 6 */ alu64i(SUB, 1, 1), callLocal(-5), alu64i(ADD, 0, 1), exit());
    }

    @Test
    void eightFramesAreAllowed() {
        assertThat(run(recursion(Limits.MAX_CALL_FRAMES - 2))).isEqualTo(6);
    }

    @Test
    void aNinthFrameIsCallDepthExceededAtTheCall() {
        Errors.expect(ErrorKind.CALL_DEPTH_EXCEEDED, 7, () -> run(recursion(Limits.MAX_CALL_FRAMES - 1)));
        Errors.expect(ErrorKind.CALL_DEPTH_EXCEEDED, 7, () -> run(recursion(1000)));
    }

    @Test
    void machinesAreReusedCleanlyAfterAnError() {
        try (Executable e = Runner.load(recursion(100), record)) {
            Errors.expect(ErrorKind.CALL_DEPTH_EXCEEDED, 7, () -> e.run(RunContext.builder().build()));
            Errors.expect(ErrorKind.CALL_DEPTH_EXCEEDED, 7, () -> e.run(RunContext.builder().build()));
        }
        try (Executable e = Runner.load(prog(movr(0, 10), exit()))) {
            long first = e.run(RunContext.builder().build());
            assertThat(e.run(RunContext.builder().build())).isEqualTo(first);
        }
    }
}
