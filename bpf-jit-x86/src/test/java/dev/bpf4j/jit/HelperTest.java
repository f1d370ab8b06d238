package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Java helpers through the jffi closure bridge: arguments, results, exit, errors, accessible(), nesting. */
class HelperTest {
    private static long run(Program p, HelperRegistry h, RunContext c) {
        return Jit.run(p, LoadOptions.defaults().withHelpers(h), c);
    }

    @Test
    void argumentsResultAndPreservedRegisters() {
        List<Long> seen = new ArrayList<>();
        AtomicReference<String> where = new AtomicReference<>();
        HelperRegistry h = HelperRegistry.builder().add(7, "mix", (call, a, b, c, d, e) -> {
            seen.addAll(List.of(a, b, c, d, e));
            where.set(call.programName() + "@" + call.pc());
            return a + 2 * b + 3 * c + 4 * d + 5 * e;
        }).build();
        Program p = prog("args", mov64(6, 60), mov64(7, 70), mov64(8, 80), mov64(9, 90),
                mov64(1, 1), mov64(2, 2), mov64(3, 3), mov64(4, 4), lddw(5, -5L),
                call(7),                                                        // pc 10
                alu64r(ADD, 0, 6), alu64r(ADD, 0, 7), alu64r(ADD, 0, 8), alu64r(ADD, 0, 9), exit());
        assertThat(run(p, h, RunContext.builder().build())).isEqualTo(1 + 4 + 9 + 16 - 25 + 300);
        assertThat(seen).containsExactly(1L, 2L, 3L, 4L, -5L);
        assertThat(where.get()).isEqualTo("args@10");
    }

    @Test
    void exitEndsTheRunWithItsR0() {
        long mem = NativeMemory.allocate(8);
        try {
            HelperRegistry h = HelperRegistry.builder().add(5, "unwind", (call, a, b, c, d, e) -> {
                if (a == 0) call.exit(0);
                return a;
            }).build();
            RunContext ctx = RunContext.builder().region(new MemoryRegion("m", mem, 8, true)).build();
            Program p = prog("exit", lddw(6, mem), mov64(1, 0), call(5), st(DW, 6, 0, 1), mov64(0, 9), exit());
            assertThat(run(p, h, ctx)).isZero();
            assertThat(NativeMemory.getLong(mem)).as("code after the exiting call must not run").isZero();
            Program q = prog("noexit", lddw(6, mem), mov64(1, 3), call(5), st(DW, 6, 0, 1), exit());
            assertThat(run(q, h, ctx)).isEqualTo(3);
            assertThat(NativeMemory.getLong(mem)).isEqualTo(1);
        } finally {
            NativeMemory.free(mem);
        }
    }

    @Test
    void badArgumentAndFailuresEndTheRunAtTheCall() {
        HelperRegistry h = HelperRegistry.builder()
                .add(1, "picky", (call, a, b, c, d, e) -> { throw call.badArgument("no"); })
                .add(2, "broken", (call, a, b, c, d, e) -> { throw new IllegalStateException("boom"); })
                .build();
        assertThatThrownBy(() -> run(prog("bad", mov64(0, 0), call(1), exit()), h, RunContext.builder().build()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
                    assertThat(e.pc()).isEqualTo(1);
                });
        assertThatThrownBy(() -> run(prog("broken", mov64(0, 0), mov64(0, 0), call(2), exit()), h, RunContext.builder().build()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED);
                    assertThat(e.pc()).isEqualTo(2);
                    assertThat(e.getCause()).hasMessage("boom");
                });
        // The failed run left nothing behind: the same thread runs normally afterwards.
        assertThat(run(prog("fine", mov64(0, 4), exit()), h, RunContext.builder().build())).isEqualTo(4);
    }

    @Test
    void unknownHelperIsALoadError() {
        assertThatThrownBy(() -> Jit.run(prog("unknown", mov64(0, 0), call(1234), exit())))
                .isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("1234").hasMessageContaining("pc 1");
    }

    @Test
    void accessibleSeesRegionsAndLiveFramesOnly() {
        long mem = NativeMemory.allocate(16);
        try {
            List<Boolean> answers = new ArrayList<>();
            HelperRegistry h = HelperRegistry.builder().add(3, "probe", (call, a, b, c, d, e) -> {
                answers.add(call.accessible(a, b, c != 0));
                return 0;
            }).build();
            RunContext ctx = RunContext.builder().arg(1, mem).region(new MemoryRegion("ro", mem, 16, false)).build();
            // main: r6 = mem, r7 = r10; call sub; sub probes several pointers.
            Program p = prog("acc", mov64r(6, 1), mov64r(7, 10), callLocal(1), exit(),
                    probe(6, 0, 16, 0), probe(6, 0, 16, 1), probe(6, 8, 9, 0),           // region: read ok, write no, overrun no
                    probe(7, -512, 512, 1), probe(7, -8, 16, 0),                          // caller frame ok, straddle no
                    probe(10, -512, 512, 1), probe(10, 8, 8, 0),                           // own frame ok, gap no
                    mov64(0, 0), exit());
            run(p, h, ctx);
            assertThat(answers).containsExactly(true, false, false, true, false, true, false);
        } finally {
            NativeMemory.free(mem);
        }
    }

    /** r1 = base + off, r2 = size, r3 = write; call 3. */
    private static Object probe(int base, int off, int size, int write) {
        return new dev.bpf4j.isa.Insn[]{mov64r(1, base), alu64(ADD, 1, off), mov64(2, size), mov64(3, write), call(3)};
    }

    @Test
    void helperMayRunAnotherProgramOnTheSameThread() {
        try (var inner = Jit.ENGINE.load(prog("inner", mov64r(0, 1), alu64(MUL, 0, 3), exit()), LoadOptions.defaults())) {
            HelperRegistry h = HelperRegistry.builder().add(4, "nested", (call, a, b, c, d, e) ->
                    inner.run(RunContext.builder().arg(1, a).build()) + call.pc()).build();
            Program p = prog("outer", mov64(1, 5), call(4), mov64(1, 7), call(4), exit());
            assertThat(run(p, h, RunContext.builder().build())).isEqualTo(21 + 3);
        }
    }

    @Test
    void helpersFromSubprogramsWithOddAndEvenSavedRegisters() {
        // Each subprogram saves a different number of callee-saved registers: rsp must stay aligned for jffi.
        HelperRegistry h = HelperRegistry.builder().add(8, "inc", (call, a, b, c, d, e) -> a + 1).build();
        Program q = prog("align2", mov64(1, 0), callLocal(2), exit(), exit(),
                mov64(6, 1), call(8), mov64r(1, 0), callLocal(1), exit(),
                mov64(6, 1), mov64(7, 1), call(8), mov64r(1, 0), call(8), alu64r(ADD, 0, 6), exit());
        assertThat(run(q, h, RunContext.builder().arg(1, 0).build())).isEqualTo(4);
    }
}
