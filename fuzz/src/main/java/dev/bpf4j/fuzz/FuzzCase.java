package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.List;
import java.util.Objects;

/**
 * One program to run differentially, in the conformance suites' convention: r1 = the memory block
 * {@code mem} (null: none, r1 = 0), r2 = its length. {@code origin} says where it came from (generator
 * and seed, or the mutated file) so that any finding can be replayed.
 */
public record FuzzCase(String origin, List<Insn> insns, byte[] mem) {
    public FuzzCase {
        Objects.requireNonNull(origin);
        insns = List.copyOf(insns);
        mem = mem == null ? null : mem.clone();
    }

    @Override public byte[] mem() { return mem == null ? null : mem.clone(); }

    /** The program, named for the engines' error messages. */
    public Program program() { return new Program("fuzz", insns); }

    /** The same memory block with other instructions (the minimiser's step). */
    public FuzzCase withInsns(List<Insn> other) { return new FuzzCase(origin, other, mem); }

    /** The same instructions with another memory block. */
    public FuzzCase withMem(byte[] other) { return new FuzzCase(origin, insns, other); }

    public int length() { return insns.size(); }
}
