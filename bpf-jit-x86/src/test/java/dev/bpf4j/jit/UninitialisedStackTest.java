package dev.bpf4j.jit;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every frame reads as zero until written, in both engines, even when an earlier run (or an
 * earlier callee) left data at the same stack addresses.
 */
class UninitialisedStackTest {
    /** Fills the main frame with 0x5a bytes, leaving it dirty for the next run. */
    private static final String DIRTY_MAIN = String.join("\n",
            "lddw %r1, 0x5a5a5a5a5a5a5a5a",
            "mov %r2, %r10",
            "add %r2, -512",
            "fill:",
            "stxdw [%r2], %r1",
            "add %r2, 8",
            "jne %r2, %r10, fill",
            "mov %r0, 0",
            "exit");

    /**
     * Fills a callee's frame the same way. A separate program: Linux gives a call chain 512
     * bytes in all, so one program that fills both frames is not one Linux would load.
     */
    private static final String DIRTY_CALLEE = String.join("\n",
            "call local sub",
            "mov %r0, 0",
            "exit",
            "sub:",
            "lddw %r1, 0x5a5a5a5a5a5a5a5a",
            "mov %r2, %r10",
            "add %r2, -512",
            "subfill:",
            "stxdw [%r2], %r1",
            "add %r2, 8",
            "jne %r2, %r10, subfill",
            "mov %r0, 0",
            "exit");

    static Stream<Arguments> readers() {
        return Stream.of(
                Arguments.of("r10-relative load", "ldxdw %r0, [%r10-8]\nexit"),
                Arguments.of("deep r10-relative load", "ldxw %r0, [%r10-500]\nexit"),
                Arguments.of("load through a pointer", "mov %r1, %r10\nadd %r1, -256\nldxdw %r0, [%r1]\nexit"),
                Arguments.of("callee's own frame", String.join("\n",
                        "call local f", "exit", "f:", "ldxdw %r0, [%r10-16]", "mov %r1, %r10", "add %r1, -400",
                        "ldxdw %r2, [%r1]", "or %r0, %r2", "exit")),
                Arguments.of("atomic fetch on an unwritten slot", "mov %r1, 1\nlock fetch add [%r10-8], %r1\nmov %r0, %r1\nexit"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readers")
    void unwrittenStackReadsAsZeroInBothEngines(String name, String reader) {
        for (Engine engine : new Engine[]{new InterpreterEngine(), new JitEngine()}) {
            LoadOptions options = LoadOptions.defaults();
            Program dirtyMain = Assembler.assembleProgram("dirty_main", DIRTY_MAIN);
            Program dirtyCallee = Assembler.assembleProgram("dirty_callee", DIRTY_CALLEE);
            Program read = Assembler.assembleProgram("read", reader);
            try (Executable m = Bpf.load(dirtyMain, engine, options); Executable c = Bpf.load(dirtyCallee, engine, options);
                 Executable r = Bpf.load(read, engine, options)) {
                RunContext ctx = RunContext.builder().build();
                m.run(ctx);
                c.run(ctx);
                assertThat(r.run(ctx)).as(name + " on " + engine.name()).isZero();
            }
        }
    }
}
