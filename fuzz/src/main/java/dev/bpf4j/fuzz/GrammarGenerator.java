package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;

import java.util.List;
import java.util.Random;

/**
 * Grammar-aware programs in the conformance convention (see {@link ProgramWriter} for the grammar):
 * a random memory block (sometimes none) and a program over every instruction class. Deterministic per seed.
 */
public final class GrammarGenerator implements ProgramGenerator {
    static final int[] MEM_LENGTHS = {1, 2, 4, 7, 8, 15, 16, 24, 32, 64};

    private final GrammarOptions options;

    public GrammarGenerator(GrammarOptions options) { this.options = options; }

    public GrammarGenerator() { this(GrammarOptions.defaults()); }

    @Override public String name() { return options.frameEscapes() ? "grammar+frames" : "grammar"; }

    @Override public FuzzCase generate(long seed) {
        Random rnd = new Random(seed);
        byte[] mem = null;
        if (rnd.nextInt(6) != 0) {
            mem = new byte[rnd.nextBoolean() ? MEM_LENGTHS[rnd.nextInt(MEM_LENGTHS.length)] : 1 + rnd.nextInt(64)];
            rnd.nextBytes(mem);
        }
        List<Insn> insns = new ProgramWriter(rnd, options, mem == null ? 0 : mem.length).write();
        return new FuzzCase(name() + " seed " + seed, insns, mem);
    }
}
