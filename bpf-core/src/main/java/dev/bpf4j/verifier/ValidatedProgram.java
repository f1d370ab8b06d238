package dev.bpf4j.verifier;

import dev.bpf4j.program.Program;

import java.util.List;

/**
 * A program that passed the load-time validator, with what the engines need to know about it: the
 * subprogram boundaries (each one becomes its own JIT function with its own frame), the verifier's
 * counts and its per-instruction facts ({@link InsnAux}: which accesses may touch a frame); both null
 * where the program was not verified.
 */
public record ValidatedProgram(Program program, List<Subprogram> subprograms, VerifierStats stats, InsnAux aux) {
    public ValidatedProgram(Program program, List<Subprogram> subprograms) { this(program, subprograms, null, null); }

    public ValidatedProgram {
        subprograms = List.copyOf(subprograms);
        if (subprograms.isEmpty() || subprograms.get(0).start() != 0) {
            throw new IllegalArgumentException("subprogram 0 must start at pc 0");
        }
    }

    /** Start pcs of all subprograms in ascending order; the first is always 0. */
    public List<Integer> subprogramStarts() {
        return subprograms.stream().map(Subprogram::start).toList();
    }

    /** The subprogram that holds {@code pc}. */
    public Subprogram subprogramAt(int pc) {
        if (pc < 0 || pc >= program.length()) throw new IndexOutOfBoundsException("pc " + pc);
        int lo = 0, hi = subprograms.size() - 1;
        while (lo < hi) { // last subprogram whose start <= pc
            int mid = (lo + hi + 1) >>> 1;
            if (subprograms.get(mid).start() <= pc) lo = mid; else hi = mid - 1;
        }
        return subprograms.get(lo);
    }

    /** True when a {@code call local} may target {@code pc}. */
    public boolean isSubprogramStart(int pc) {
        return pc >= 0 && pc < program.length() && subprogramAt(pc).start() == pc;
    }
}
