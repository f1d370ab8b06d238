package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A HelperCall a Java helper keeps after its run returned: every use from Java fails with the same
 * IllegalStateException on the interpreter and the JIT, and later runs of the program are unaffected.
 */
class KeptHelperCallTest {
    private static final String ENDED = "IllegalStateException: the run of 'keep' this HelperCall belonged to has ended";

    /** r0 = keep(r10 - 8) + 5: the helper returns its pc (3) when its stack argument passes the write check. */
    private static final Program KEEP = prog("keep", st(DW, 10, -8, 3), mov64r(1, 10), alu64(ADD, 1, -8),
            call(1), alu64(ADD, 0, 5), exit());

    /** What each HelperCall method does on {@code call}: its result or its exception and message. */
    private static List<String> uses(HelperCall call) {
        List<Function<HelperCall, Object>> uses = List.of(
                HelperCall::programName, HelperCall::pc, HelperCall::runContext,
                c -> c.accessible(0x1000, 8, false), c -> { c.exit(1); return "exited"; },
                c -> c.callSubprogram(0, 1, 2, 3, 4, 5), c -> c.tailCall(null), c -> c.scratch(8),
                c -> { c.checkArgument("buf", 0x1000, 8, false); return "checked"; }, c -> c.badArgument("x"));
        List<String> out = new ArrayList<>();
        for (Function<HelperCall, Object> use : uses) {
            try {
                out.add(String.valueOf(use.apply(call)));
            } catch (RuntimeException e) {
                out.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** Two runs of one executable, each keeping its HelperCall; what the kept calls do afterwards, and each run's r0. */
    private static List<String> outcome(Engine engine) {
        AtomicReference<HelperCall> kept = new AtomicReference<>();
        List<String> during = new ArrayList<>(); // the previous run's call, used inside a later run
        HelperRegistry h = HelperRegistry.builder().add(1, "keep", (call, a, b, c, d, e) -> {
            HelperCall previous = kept.getAndSet(call);
            if (previous != null) {
                try {
                    during.add("pc=" + previous.pc() + " name=" + previous.programName());
                } catch (IllegalStateException ended) {
                    during.add(ended.getClass().getSimpleName() + ": " + ended.getMessage());
                }
            }
            return call.accessible(a, 8, true) ? call.pc() : -1; // the call is at pc 3
        }).build();
        List<String> out = new ArrayList<>();
        try (Executable x = engine.load(KEEP, LoadOptions.defaults().withHelpers(h))) {
            out.add("r0=" + x.run(RunContext.builder().build()));
            HelperCall first = kept.get();
            out.addAll(uses(first));
            out.add("r0=" + x.run(RunContext.builder().build())); // the failed exit(1) above must not leak in
            assertThat(kept.get()).isNotNull();
            out.addAll(uses(first));
            out.addAll(uses(kept.get()));
        }
        out.addAll(during);
        return out;
    }

    /** r0 = twice(r1) at pc 0, then r0 = twice(r1) at pc 2 (r1 kept in r6). */
    private static final Program TWICE = prog("twice", mov64r(6, 1), call(1), mov64r(1, 6), call(1), exit());

    /**
     * Within one run, the HelperCall of an earlier helper call still answers in a later one, for the
     * run's current state: its pc is the later call's.
     */
    private static List<String> earlierCallInTheSameRun(Engine engine) {
        AtomicReference<HelperCall> first = new AtomicReference<>();
        List<String> out = new ArrayList<>();
        HelperRegistry h = HelperRegistry.builder().add(1, "twice", (call, a, b, c, d, e) -> {
            if (first.compareAndSet(null, call)) return call.pc();
            HelperCall earlier = first.getAndSet(null);
            out.add("pc=" + earlier.pc() + " name=" + earlier.programName() + " ctx arg=" + earlier.runContext().arg(0)
                    + " accessible=" + earlier.accessible(a, 1, false));
            return 100 + earlier.pc();
        }).build();
        try (Executable x = engine.load(TWICE, LoadOptions.defaults().withHelpers(h))) {
            for (long arg : new long[] {7, 9}) out.add("r0=" + x.run(RunContext.builder().arg(1, arg).build()));
        }
        return out;
    }

    @Test
    void anEarlierHelperCallOfTheSameRunAnswersAlikeOnBothEngines() {
        List<String> interp = earlierCallInTheSameRun(Both.INTERP), jit = earlierCallInTheSameRun(Jit.ENGINE);
        assertThat(interp).as("interpreter vs JIT").isEqualTo(jit);
        assertThat(jit).containsExactly("pc=3 name=twice ctx arg=7 accessible=false", "r0=103",
                "pc=3 name=twice ctx arg=9 accessible=false", "r0=103");
    }

    @Test
    void aHelperCallKeptPastItsRunFailsAlikeOnBothEngines() {
        List<String> interp = outcome(Both.INTERP), jit = outcome(Jit.ENGINE);
        assertThat(interp).as("interpreter vs JIT").isEqualTo(jit);
        assertThat(jit.get(0)).isEqualTo("r0=8");
        assertThat(jit.get(1)).as("programName still answers").isEqualTo("keep");
        assertThat(jit.subList(2, 11)).allMatch(ENDED::equals);
        assertThat(jit.get(11)).isEqualTo("r0=8");
        List<String> firstAfterRun = jit.subList(1, 11);
        assertThat(jit.subList(12, 22)).as("the first run's call, after the second run").isEqualTo(firstAfterRun);
        assertThat(jit.subList(22, 32)).as("the second run's call").isEqualTo(firstAfterRun);
        assertThat(jit.get(32)).as("the first run's call, used by a helper of the second run").isEqualTo(ENDED);
        assertThat(jit).hasSize(33);
    }
}
