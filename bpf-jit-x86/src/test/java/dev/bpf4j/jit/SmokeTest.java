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

    @Test
    void allFiveEntryArguments() {
        // r0 = r1 + 2*r2 + 3*r3 + 4*r4 + 5*r5
        var p = prog("five", mov64r(0, 1), alu64(MUL, 2, 2), alu64r(ADD, 0, 2), alu64(MUL, 3, 3), alu64r(ADD, 0, 3),
                alu64(MUL, 4, 4), alu64r(ADD, 0, 4), alu64(MUL, 5, 5), alu64r(ADD, 0, 5), exit());
        try (Executable x = new JitEngine().load(p, LoadOptions.defaults().withEntryArgs(5))) {
            assertThat(x.run(RunContext.builder().arg(1, 1).arg(2, 10).arg(3, 100).arg(4, 1000).arg(5, 10000).build()))
                    .isEqualTo(1 + 20 + 300 + 4000 + 50000);
        }
    }
}
