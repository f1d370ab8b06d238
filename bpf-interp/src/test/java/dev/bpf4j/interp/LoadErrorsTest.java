package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ServiceLoader;
import java.util.stream.Stream;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The engine's own guard: programs it cannot run safely fail at load, or with a clear error, never a crash. */
class LoadErrorsTest {
    static Stream<Arguments> rejected() {
        return Stream.of(
                arguments("unknown ALU op", prog(new Insn(ALU64 | 0xe0 | K, 0, 0, 0, 0), exit()), 0, "unknown ALU opcode"),
                arguments("internal movsx code", prog(new Insn(ALU64 | 0xe0 | X, 0, 1, 8, 0), exit()), 0, "unknown ALU opcode"),
                arguments("unknown jump op", prog(new Insn(JMP | 0xe0, 0, 0, 0, 0), exit()), 0, "unknown jump opcode"),
                arguments("JMP32 exit", prog(new Insn(JMP32 | EXIT, 0, 0, 0, 0)), 0, "unknown jump opcode"),
                arguments("neg with X", prog(new Insn(ALU64 | NEG | X, 0, 1, 0, 0), exit()), 0, "neg"),
                arguments("LDX IMM mode (internal stack code)", prog(new Insn(LDX | W, 0, 10, -8, 0), exit()), 0, "LDX mode"),
                arguments("ST IMM mode", prog(new Insn(ST | DW, 10, 0, -8, 0), exit()), 0, "ST mode"),
                arguments("STX IMM mode", prog(new Insn(STX | B, 10, 1, -8, 0), exit()), 0, "STX mode"),
                arguments("legacy ABS", prog(new Insn(LD | ABS | W, 0, 0, 0, 0), exit()), 0, "legacy"),
                arguments("write to r10", prog(mov(10, 0), exit()), 0, "r10 is read-only"),
                arguments("load into r10", prog(ldx(DW, 10, 1, 0), exit()), 0, "r10 is read-only"),
                arguments("fetch into r10", prog(atomic(DW, 1, 10, 0, ADD | FETCH), exit()), 0, "r10 is read-only"),
                arguments("register 11", prog(new Insn(ALU64 | MOV | K, 11, 0, 0, 0), exit()), 0, "past r10"),
                arguments("jump past the end", prog(ja(5), exit()), 0, "outside the program"),
                arguments("jump before the start", prog(mov(0, 0), jmpi(JEQ, 0, 0, -3), exit()), 1, "outside the program"),
                arguments("jump into lddw", prog(ja(1), lddw(0, 1), exit()), 0, "second slot"),
                arguments("gotol past the end", prog(gotol(9), exit()), 0, "outside the program"),
                arguments("call local outside", prog(callLocal(-5), exit()), 0, "outside the program"),
                arguments("truncated lddw", prog(new Insn(LDDW, 0, 0, 0, 0)), 0, "second slot"),
                arguments("lddw map fd", prog(new Insn(LDDW, 0, PSEUDO_MAP_FD, 0, 3), new Insn(0, 0, 0, 0, 0), exit()), 0, "relocated"),
                arguments("kfunc call", prog(new Insn(JMP | CALL, 0, PSEUDO_KFUNC_CALL, 0, 1), exit()), 0, "kfunc"),
                arguments("bad byte-swap width", prog(new Insn(ALU | END | TO_BE, 0, 0, 0, 8), exit()), 0, "16, 32 or 64"),
                arguments("ALU64 END with TO_BE", prog(new Insn(ALU64 | END | TO_BE, 0, 0, 0, 16), exit()), 0, "bswap"),
                arguments("bad movsx width", prog(new Insn(ALU64 | MOV | X, 0, 1, 4, 0), exit()), 0, "movsx"),
                arguments("ALU movsx 32", prog(new Insn(ALU | MOV | X, 0, 1, 32, 0), exit()), 0, "8 or 16"),
                arguments("bad sdiv offset", prog(new Insn(ALU64 | DIV | X, 0, 1, 2, 0), exit()), 0, "div/mod"),
                arguments("unknown atomic op", prog(atomic(DW, 1, 2, 0, 0x10), exit()), 0, "atomic operation"),
                arguments("byte-sized atomic", prog(atomic(B, 1, 2, 0, ADD), exit()), 0, "32 or 64"),
                arguments("8-byte MEMSX", prog(ldxsx(DW, 0, 1, 0), exit()), 0, "MEMSX"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectedAtLoad(String name, Program p, int pc, String reason) {
        assertThatThrownBy(() -> Runner.load(p))
                .isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("'test'")
                .hasMessageContaining("pc " + pc)
                .hasMessageContaining(reason);
    }

    @Test
    void emptyProgram() {
        assertThatThrownBy(() -> Runner.load(new Program("test", java.util.List.of())))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("empty");
    }

    @Test
    void fallingOffTheEndIsAClearErrorNotACrash() {
        assertThatThrownBy(() -> Runner.run(prog(mov(0, 1))))
                .isInstanceOf(BpfException.class)
                .isNotInstanceOf(BpfRuntimeException.class)
                .hasMessageContaining("pc 1").hasMessageContaining("past the last instruction");
        assertThatThrownBy(() -> Runner.run(prog(mov(0, 1), jmpi(JEQ, 0, 0, -2))))
                .hasMessageContaining("pc 2");
    }

    @Test
    void lddwLoadsTheWholeImmediate() {
        assertThat(Runner.run(prog(lddw(0, 0x8000_0000_ffff_ffffL), exit()))).isEqualTo(0x8000_0000_ffff_ffffL);
        assertThat(Runner.run(prog(lddw(0, -1L), lddw(1, 0x1_0000_0000L), alu64(ADD, 0, 1), exit()))).isEqualTo(0xffff_ffffL);
    }

    @Test
    void entryArgumentsFollowLoadOptions() {
        RunContext ctx = RunContext.builder().arg(1, 7).arg(2, 8).build();
        Program p = prog(movr(0, 1), alu64(ADD, 0, 2), exit());
        assertThat(Runner.ENGINE.load(p, LoadOptions.defaults()).run(ctx)).isEqualTo(7);
        assertThat(Runner.ENGINE.load(p, LoadOptions.defaults().withEntryArgs(2)).run(ctx)).isEqualTo(15);
    }

    @Test
    void discoverableAsAServiceAndUsableThroughBpf() {
        Engine engine = ServiceLoader.load(Engine.class).stream().map(ServiceLoader.Provider::get)
                .filter(e -> e.name().equals("interp")).findFirst().orElseThrow();
        try (var exe = Bpf.load(prog(mov(0, 42), exit()), engine, LoadOptions.defaults())) {
            assertThat(exe.run(RunContext.builder().build())).isEqualTo(42);
        }
    }
}
