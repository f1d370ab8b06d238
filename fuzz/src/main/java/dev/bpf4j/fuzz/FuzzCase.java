package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.List;
import java.util.Objects;

/**
 * One program to run differentially. Without an {@link ObjectShape} it runs in the conformance suites'
 * convention: r1 = the memory block {@code mem} (null: none, r1 = 0), r2 = its length. With one it is
 * a tc program ({@code __sk_buff} in r1) of a small object with maps and a tail-call target, and
 * {@code mem} is its packet. {@code origin} says where it came from (generator and seed, or the mutated
 * file) so that any finding can be replayed.
 */
public record FuzzCase(String origin, List<Insn> insns, byte[] mem, ObjectShape object) {
    public FuzzCase {
        Objects.requireNonNull(origin);
        insns = List.copyOf(insns);
        mem = mem == null ? null : mem.clone();
    }

    /** A conformance-convention case. */
    public FuzzCase(String origin, List<Insn> insns, byte[] mem) { this(origin, insns, mem, null); }

    @Override public byte[] mem() { return mem == null ? null : mem.clone(); }

    /** The program, named for the engines' error messages. */
    public Program program() { return new Program("fuzz", insns); }

    /** True when the case is an object (maps, packet, tail calls) rather than a program over a memory block. */
    public boolean isObject() { return object != null; }

    /** The same memory block and maps with other instructions (the minimiser's step). */
    public FuzzCase withInsns(List<Insn> other) { return new FuzzCase(origin, other, mem, object); }

    /** The same instructions with another memory block. */
    public FuzzCase withMem(byte[] other) { return new FuzzCase(origin, insns, other, object); }

    public int length() { return insns.size(); }
}
