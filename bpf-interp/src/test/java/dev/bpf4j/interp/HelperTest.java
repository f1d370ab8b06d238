package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** call helper: arguments, result, exit, argument checks and failures. */
class HelperTest {
    final List<String> log = new ArrayList<>();

    final HelperRegistry helpers = HelperRegistry.builder()
            .add(1, "weigh", (c, r1, r2, r3, r4, r5) -> {
                log.add(c.programName() + "@" + c.pc());
                return r1 + 10 * r2 + 100 * r3 + 1000 * r4 + 10000 * r5;
            })
            .add(5, "unwind", (c, r1, r2, r3, r4, r5) -> {
                if (r1 == 0) c.exit(0);
                return r1;
            })
            .add(6, "sum_bytes", (c, r1, r2, r3, r4, r5) -> {
                c.checkArgument("buf", r1, r2, false);
                long sum = 0;
                for (long i = 0; i < r2; i++) sum += NativeMemory.getByte(r1 + i) & 0xff;
                return sum;
            })
            .add(7, "writable", (c, r1, r2, r3, r4, r5) -> c.accessible(r1, r2, r3 != 0) ? 1 : 0)
            .add(8, "broken", (c, r1, r2, r3, r4, r5) -> { throw new IllegalStateException("boom"); })
            .build();

    long run(Program p, RunContext ctx) {
        try (Executable e = Runner.load(p, helpers)) {
            return e.run(ctx);
        }
    }

    long run(Program p) { return run(p, RunContext.builder().build()); }

    @Test
    void argumentsAndResult() {
        assertThat(run(prog(mov(1, 1), mov(2, 2), mov(3, 3), mov(4, 4), mov(5, 5), call(1), exit())))
                .isEqualTo(54321);
        assertThat(log).containsExactly("test@5");
    }

    @Test
    void calleeSavedRegistersSurviveAHelper() {
        assertThat(run(prog(mov(6, 6), mov(9, 9), mov(1, 0), mov(2, 0), mov(3, 0), mov(4, 0), mov(5, 0), call(1),
                movr(0, 6), alu64(ADD, 0, 9), exit()))).isEqualTo(15);
    }

    @Test
    void exitEndsTheRunWithTheGivenR0() {
        Program p = prog(call(5), alu64i(ADD, 0, 100), exit());
        assertThat(run(p, RunContext.builder().arg(1, 3).build())).isEqualTo(103);
        assertThat(run(p, RunContext.builder().arg(1, 0).build())).isEqualTo(0);
    }

    @Test
    void exitFromASubprogramEndsTheWholeRun() {
        // main: call sub; r0 = 77; exit | sub: r1 = 0; call unwind; r0 = 5; exit
        assertThat(run(prog(callLocal(2), mov(0, 77), exit(), mov(1, 0), call(5), mov(0, 5), exit()))).isEqualTo(0);
    }

    @Test
    void pointerArgumentsIntoTheStackAreChecked() {
        // [r10-16..-1] = 1,2 (as two dwords); sum_bytes(r10 - 16, r2)
        Program ok = prog(st(DW, 10, -16, 1), st(DW, 10, -8, 2), movr(1, 10), alu64i(ADD, 1, -16), mov(2, 16), call(6), exit());
        assertThat(run(ok)).isEqualTo(3);
        Program tooLong = prog(movr(1, 10), alu64i(ADD, 1, -8), mov(2, 16), call(6), exit());
        BpfRuntimeException e = Errors.expect(ErrorKind.BAD_HELPER_ARGUMENT, 3, () -> run(tooLong));
        assertThat(e.getMessage()).contains("buf");
    }

    @Test
    void accessibleFollowsRegionPermissions() {
        long mem = NativeMemory.allocate(8);
        try {
            RunContext ctx = RunContext.builder().arg(1, mem)
                    .region(new MemoryRegion("ro", mem, 8, false)).build();
            assertThat(run(prog(mov(2, 8), mov(3, 0), call(7), exit()), ctx)).isEqualTo(1);
            assertThat(run(prog(mov(2, 8), mov(3, 1), call(7), exit()), ctx)).isEqualTo(0);
            assertThat(run(prog(mov(2, 9), mov(3, 0), call(7), exit()), ctx)).isEqualTo(0);
            assertThat(run(prog(mov(2, 0), mov(3, 0), call(7), exit()), ctx)).as("empty").isEqualTo(0);
            assertThat(run(prog(mov(2, -1), mov(3, 0), call(7), exit()), ctx)).as("negative").isEqualTo(0);
            assertThat(run(prog(mov(1, -4), mov(2, 8), mov(3, 0), call(7), exit()), ctx)).as("wraps").isEqualTo(0);
            assertThat(run(prog(movr(1, 10), alu64i(ADD, 1, -512), mov(2, 512), mov(3, 1), call(7), exit()), ctx)).isEqualTo(1);
        } finally {
            NativeMemory.free(mem);
        }
    }

    @Test
    void aThrowingHelperEndsTheRunWithHelperFailed() {
        BpfRuntimeException e = Errors.expect(ErrorKind.HELPER_FAILED, 1, () -> run(prog(mov(0, 0), call(8), exit())));
        assertThat(e.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(e.getMessage()).contains("broken");
    }

    @Test
    void badArgumentKeepsItsKind() {
        HelperRegistry reg = HelperRegistry.builder()
                .add(3, "picky", (c, r1, r2, r3, r4, r5) -> { throw c.badArgument("flags must be 0"); }).build();
        try (Executable e = Runner.load(prog(mov(1, 1), call(3), exit()), reg)) {
            BpfRuntimeException x = Errors.expect(ErrorKind.BAD_HELPER_ARGUMENT, 1, () -> e.run(RunContext.builder().build()));
            assertThat(x.getMessage()).contains("flags must be 0");
        }
    }

    @Test
    void unknownHelperIsALoadError() {
        assertThatThrownBy(() -> Runner.load(prog(mov(0, 0), call(99), exit()), helpers))
                .isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("99").hasMessageContaining("pc 1").hasMessageContaining("test");
    }

    @Test
    void aHelperMayRunTheSameProgramAgain() {
        // re-entrant run: a nested run must get its own stack
        Executable[] self = new Executable[1];
        HelperRegistry reg = HelperRegistry.builder().add(2, "again", (HelperCall c, long r1, long r2, long r3, long r4, long r5) ->
                r1 == 0 ? 0 : self[0].run(RunContext.builder().arg(1, r1 - 1).build())).build();
        // [r10-8] = r1; r1 = r1; call again; r0 += [r10-8]; exit  => r1 + (r1-1) + ... + 0
        Program p = prog(stx(DW, 10, 1, -8), call(2), ldx(DW, 1, 10, -8), alu64(ADD, 0, 1), exit());
        try (Executable e = Runner.load(p, reg)) {
            self[0] = e;
            assertThat(e.run(RunContext.builder().arg(1, 10).build())).isEqualTo(55);
        }
    }
}
