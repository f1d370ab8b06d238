package dev.bpf4j.jit.runtime;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.jit.JitEngine;
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
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JIT run of code that cannot call Java does not record its program and context in the level's
 * run object before it enters (nothing can read them while it runs); its errors must still name
 * that program, its pc and its own budget, also when the same level last ran another program,
 * with another context, or runs it nested inside a helper. Same answers as the interpreter.
 */
class RunsWithoutJavaTest {
    private static final int NEST = 1000, CALL = 1001;

    /** Reads address 16: OUT_OF_BOUNDS at pc 2. */
    private static final Program FAULT = new ProgramBuilder().lddw(R1, 16).ldxdw(R0, R1, 0).exit().build("fault");
    /** Loops until the budget runs out: BUDGET_EXCEEDED at pc 2 (the back-edge). */
    private static final Program SPIN = new ProgramBuilder().mov64(R0, 0).label("top").add64(R0, 1).ja("top").exit().build("spin");
    /** Calls a Java helper: the level's run object then holds this program and its context. */
    private static final Program JAVA = new ProgramBuilder().mov64(R1, 41).call(CALL).exit().build("java");
    /** Its helper runs {@link #FAULT} (one level deeper) and answers what that run threw. */
    private static final Program NESTING = new ProgramBuilder().call(NEST).exit().build("nesting");

    private static String outcome(Executable x, long budget) {
        try {
            return "r0=" + x.run(RunContext.builder().budget(budget).build());
        } catch (BpfRuntimeException e) {
            return e.kind() + "@" + e.program() + ":" + e.pc() + " " + e.getMessage();
        }
    }

    /** The outcomes of one sequence of runs on one thread, on {@code engine}. */
    private static List<String> runs(Engine engine) {
        List<String> out = new ArrayList<>();
        Executable[] fault = new Executable[1];
        HelperRegistry helpers = HelperRegistry.builder()
                .add(CALL, "plus_one", (call, r1, r2, r3, r4, r5) -> r1 + 1)
                .add(NEST, "run_fault", (call, r1, r2, r3, r4, r5) -> {
                    out.add("nested " + outcome(fault[0], 7));
                    return 5;
                }).build();
        LoadOptions o = LoadOptions.defaults().withHelpers(helpers);
        try (Executable java = engine.load(JAVA, o); Executable f = engine.load(FAULT, o);
             Executable spin = engine.load(SPIN, o); Executable nesting = engine.load(NESTING, o)) {
            fault[0] = f;
            out.add(outcome(java, 1000));
            out.add(outcome(f, 1000));
            out.add(outcome(java, 1000));
            out.add(outcome(spin, 50));
            out.add(outcome(spin, 60));
            out.add(outcome(nesting, 1000));
            out.add(outcome(java, 1000));
        }
        return out;
    }

    @Test
    void errorsNameTheFailingProgramAndItsOwnBudgetOnBothEngines() {
        List<String> want = runs(new InterpreterEngine());
        assertThat(runs(new JitEngine())).isEqualTo(want);
        assertThat(want.get(0)).isEqualTo("r0=42");
        assertThat(want.get(1)).startsWith("OUT_OF_BOUNDS@fault:2 ");
        assertThat(want.get(3)).startsWith("BUDGET_EXCEEDED@spin:2 ").contains("more than 50 ");
        assertThat(want.get(4)).contains("more than 60 ");
        assertThat(want.get(5)).startsWith("nested OUT_OF_BOUNDS@fault:2 ");
        assertThat(want.get(6)).isEqualTo("r0=5");
        assertThat(want.get(7)).isEqualTo("r0=42");
    }
}
