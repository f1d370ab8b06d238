package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JIT against the interpreter over seeded random parser-like programs in the data-buffer
 * convention ({@link PacketProgramGenerator}), each run over (data, len, writable) triples that the
 * entry guard accepts and ones it refuses: same r0, same error kind, pc and address, same memory.
 * Many accesses are left unchecked by the guarded copy (RegionProof), so a wrong proof shows up as
 * a missing error or different memory, and byte-by-byte field reads merged into one load
 * (LoadCombining) where they must not be show up as a different r0. Rerun one with {@code -Dbpf4j.seed=<seed> -Dbpf4j.programs=1}.
 */
class PacketDifferentialTest {
    private static final int PAD = 32, BUF = 64, TOTAL = BUF + 2 * PAD;
    private static final LoadOptions OPTIONS = LoadOptions.defaults().withEntryArgs(2);
    /** data offset from the region start, len, writable. */
    private static final long[][] CONTEXTS = contexts();

    /**
     * A few fixed ones (a read-only region, len past the region, data before it), and every len
     * 0..47 with data + len at the region's end, where reading one byte past len is an error.
     */
    private static long[][] contexts() {
        long[][] fixed = {{0, 64, 0}, {0, 20, 1}, {0, 3, 1}, {30, 34, 0}, {0, 65, 1}, {50, 20, 1}, {-4, 30, 1}, {0, 1000, 0}};
        long[][] all = new long[fixed.length + 48][];
        System.arraycopy(fixed, 0, all, 0, fixed.length);
        for (int len = 0; len < 48; len++) all[fixed.length + len] = new long[]{BUF - len, len, 1};
        return all;
    }

    @Test
    void guardedCopyAgreesWithTheInterpreter() {
        long seedBase = Long.getLong("bpf4j.seed", 0x9ac_2026L);
        int programs = Integer.getInteger("bpf4j.programs", 400);
        long mem = NativeMemory.allocate(TOTAL);
        ProofTally t = new ProofTally();
        try {
            for (int i = 0; i < programs; i++) {
                long seed = seedBase + i;
                Program p = new PacketProgramGenerator(seed).generate("pkt" + i);
                if (t.compile(p, OPTIONS) == null) continue;
                try (Executable interp = Both.INTERP.load(p, OPTIONS); Executable jit = Jit.ENGINE.load(p, OPTIONS)) {
                    for (long[] ctx : CONTEXTS) {
                        String want = outcome(interp, mem, ctx, seed);
                        String got = outcome(jit, mem, ctx, seed);
                        if (!got.equals(want)) {
                            fail("seed " + seed + " data=region+" + ctx[0] + " len=" + ctx[1] + " writable=" + ctx[2]
                                    + "\nprogram " + p.insns() + "\ninterp " + want + "\njit    " + got);
                        }
                        t.run(want);
                    }
                }
                t.compared++;
            }
        } finally {
            NativeMemory.free(mem);
        }
        System.out.printf("packet differential: %d programs, %d with a guarded copy, %d unchecked accesses, %d merged byte loads, %d errors, %d clean runs%n",
                t.compared, t.withCopy, t.unchecked, t.combined, t.errors, t.clean);
        assertThat(t.compared).as("programs compared").isGreaterThan(programs / 2);
        assertThat(t.withCopy).as("programs with a guarded copy").isGreaterThan(t.compared / 3);
        assertThat(t.unchecked).as("accesses the guarded copies leave unchecked").isGreaterThan(t.compared);
        assertThat(t.combined).as("byte-by-byte fields the guarded copies load at once").isGreaterThan(t.compared / 8);
        assertThat(t.errors).as("runs that ended out of bounds").isGreaterThan(t.compared);
        assertThat(t.clean).as("runs that returned").isGreaterThan(t.compared);
    }

    private static String outcome(Executable x, long mem, long[] c, long seed) {
        byte[] init = new byte[TOTAL];
        new Random(seed).nextBytes(init);
        NativeMemory.write(mem, init, 0, TOTAL);
        long base = mem + PAD;
        RunContext ctx = RunContext.builder().arg(1, base + c[0]).arg(2, c[1])
                .region(new MemoryRegion("data", base, BUF, c[2] == 1)).budget(1000).build();
        return RegionRuns.outcome(x, ctx, base, mem, TOTAL);
    }
}
