package dev.bpf4j.jit;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Reg.R0;
import static dev.bpf4j.isa.Reg.R1;
import static dev.bpf4j.isa.Reg.R3;
import static dev.bpf4j.isa.Reg.R4;
import static dev.bpf4j.isa.Reg.R5;
import static dev.bpf4j.isa.Reg.R10;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One executable run again and again, each run taking another path: what a run leaves behind (a
 * callee's frame and memory windows after an error inside it, a helper's exit) must not reach the
 * next one, and a run that ends plainly must leave the next as it found it. Both engines, one
 * executable each, the same sequence; the interpreter skips part of its reset after a run that
 * never left its dispatch loop, which this sequence checks from every kind of previous run.
 */
class RepeatedRunsTest {
    private static final int EXIT_HELPER = 300;

    /**
     * r1 = mode. 0: read [r10 - 8] through a pointer (0: the frame is zeroed), r0 = it + 100.
     * 1: a subprogram writes and reads its own frame through a pointer (windows on the callee's
     * frame), then reads address 16: OUT_OF_BOUNDS. 2: a helper ends the run with r0 = 10.
     * 3: a subprogram reads its zeroed frame, r0 = 1005. 4: reads where a callee's frame was, from
     * the main frame's pointer: OUT_OF_BOUNDS (no callee frame is live).
     */
    static Program modes() {
        return new ProgramBuilder()
                .jeq(R1, 1, "fault").jeq(R1, 2, "exit").jeq(R1, 3, "ok").jeq(R1, 4, "dead")
                .mov64(R3, R10).add64(R3, -8).ldxdw(R0, R3, 0).add64(R0, 100).exit()
                .label("fault").callLocal("subFault").exit()
                .label("exit").mov64(R1, 9).call(EXIT_HELPER).mov64(R0, 1).exit()
                .label("ok").callLocal("subOk").add64(R0, 1000).exit()
                .label("dead").mov64(R3, R10).add64(R3, -536).ldxdw(R0, R3, 0).exit()
                .label("subFault").mov64(R3, R10).add64(R3, -8).mov64(R4, 7).stxdw(R3, 0, R4).ldxdw(R0, R3, 0)
                .lddw(R5, 16).ldxdw(R0, R5, 0).exit()
                .label("subOk").mov64(R3, R10).add64(R3, -8).ldxdw(R0, R3, 0).add64(R0, 5).exit()
                .build("modes");
    }

    private static final long[] SEQUENCE = {0, 0, 1, 4, 0, 1, 0, 0, 2, 0, 2, 3, 4, 0, 1, 3, 0, 4, 0};

    private static List<String> runs(Engine engine) {
        HelperRegistry helpers = HelperRegistry.builder().add(EXIT_HELPER, "exit_plus_one", (call, r1, r2, r3, r4, r5) -> {
            call.exit(r1 + 1);
            return 0;
        }).build();
        List<String> out = new ArrayList<>();
        try (Executable x = engine.load(modes(), LoadOptions.defaults().withHelpers(helpers))) {
            for (long mode : SEQUENCE) {
                try {
                    out.add(mode + ": r0=" + x.run(RunContext.builder().arg(1, mode).build()));
                } catch (BpfRuntimeException e) {
                    out.add(mode + ": " + e.kind() + "@" + e.pc());
                }
            }
        }
        return out;
    }

    @Test
    void eachRunStartsFresh() {
        List<String> want = runs(Both.INTERP);
        assertThat(runs(Jit.ENGINE)).isEqualTo(want);
        assertThat(want).startsWith("0: r0=100", "0: r0=100", "1: OUT_OF_BOUNDS@29", "4: OUT_OF_BOUNDS@20", "0: r0=100");
        assertThat(want).contains("2: r0=10", "3: r0=1005");
        assertThat(want.stream().filter(s -> s.startsWith("4: ")).distinct()).containsExactly("4: OUT_OF_BOUNDS@20");
        assertThat(want.stream().filter(s -> s.startsWith("0: ")).distinct()).containsExactly("0: r0=100");
    }
}
