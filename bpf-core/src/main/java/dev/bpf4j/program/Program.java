package dev.bpf4j.program;

import dev.bpf4j.isa.Insn;

import java.util.List;
import java.util.Objects;

/**
 * An immutable eBPF program: a name and its instruction slots (an lddw takes two slots). Program
 * counters index {@link #insns()}.
 */
public record Program(String name, List<Insn> insns) {
    public Program {
        Objects.requireNonNull(name, "name");
        insns = List.copyOf(insns);
    }

    public static Program of(String name, Insn... insns) { return new Program(name, List.of(insns)); }

    public int length() { return insns.size(); }

    public Insn insn(int pc) { return insns.get(pc); }

    public Insn[] toArray() { return insns.toArray(new Insn[0]); }
}
