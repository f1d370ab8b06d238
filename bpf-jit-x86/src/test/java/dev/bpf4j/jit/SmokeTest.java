package dev.bpf4j.jit;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

class SmokeTest {
    @Test
    void returnsConstant() {
        try (Executable x = new JitEngine().load(prog("c", mov64(0, 42), exit()), LoadOptions.defaults())) {
            assertThat(x.run(RunContext.builder().build())).isEqualTo(42);
        }
    }

    @Test
    void addsArgs() {
        try (Executable x = new JitEngine().load(prog("add", mov64r(0, 1), alu64r(ADD, 0, 2), exit()), LoadOptions.defaults().withEntryArgs(2))) {
            assertThat(x.run(RunContext.builder().arg(1, 40).arg(2, 2).build())).isEqualTo(42);
        }
    }
}
