package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JIT against the interpreter over seeded random parser-like XDP programs
 * ({@link PacketProgramGenerator} in its ctx form: data and data_end loaded from {@code struct xdp_md}),
 * each run over {@link CtxRuns}' shapes (read-only and writable) and over every len 0..47 with
 * data_end at the packet region's end, where a proof one byte too generous turns an
 * {@code OUT_OF_BOUNDS} into a read. Rerun one with {@code -Dbpf4j.seed=<seed> -Dbpf4j.programs=1}.
 */
class CtxDifferentialTest {
    private static final LoadOptions OPTIONS = CtxRuns.OPTIONS;

    private static List<Object[]> contexts() {
        List<Object[]> all = new ArrayList<>();
        for (CtxRuns.Shape s : CtxRuns.SHAPES) {
            all.add(new Object[]{s, false});
            all.add(new Object[]{s, true});
        }
        for (int len = 0; len < 48; len++) all.add(new Object[]{new CtxRuns.Shape(CtxRuns.BUF - len, len, CtxRuns.CTX_SIZE, false), true});
        return all;
    }

    @Test
    void guardedCopyAgreesWithTheInterpreter() {
        long seedBase = Long.getLong("bpf4j.seed", 0xc7_2026L);
        int programs = Integer.getInteger("bpf4j.programs", 300);
        List<Object[]> contexts = contexts();
        ProofTally t = new ProofTally();
        try (CtxRuns runs = new CtxRuns()) {
            for (int i = 0; i < programs; i++) {
                long seed = seedBase + i;
                Program p = new PacketProgramGenerator(seed, true).generate("xdp" + i);
                if (t.compile(p, OPTIONS) == null) continue;
                try (Executable interp = Both.INTERP.load(p, OPTIONS); Executable jit = Jit.ENGINE.load(p, OPTIONS)) {
                    for (Object[] ctx : contexts) {
                        CtxRuns.Shape shape = (CtxRuns.Shape) ctx[0];
                        boolean writable = (Boolean) ctx[1];
                        String want = runs.outcome(interp, shape, writable);
                        String got = runs.outcome(jit, shape, writable);
                        if (!got.equals(want)) {
                            fail("seed " + seed + " " + shape + " writable=" + writable + "\nprogram " + p.insns()
                                    + "\ninterp " + want + "\njit    " + got);
                        }
                        t.run(want);
                    }
                }
                t.compared++;
            }
        }
        System.out.printf("ctx differential: %d programs, %d with a guarded copy, %d unchecked accesses, %d errors, %d clean runs%n",
                t.compared, t.withCopy, t.unchecked, t.errors, t.clean);
        assertThat(t.compared).as("programs compared").isGreaterThan(programs / 2);
        assertThat(t.withCopy).as("programs with a guarded copy").isGreaterThan(t.compared / 2);
        assertThat(t.unchecked).as("accesses the guarded copies leave unchecked").isGreaterThan(3 * t.compared);
        assertThat(t.errors).as("runs that ended out of bounds").isGreaterThan(t.compared);
        assertThat(t.clean).as("runs that returned").isGreaterThan(t.compared);
    }
}
