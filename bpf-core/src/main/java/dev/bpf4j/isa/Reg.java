package dev.bpf4j.isa;

import dev.bpf4j.asm.ProgramBuilder;

/** The eleven eBPF registers, for the {@link ProgramBuilder} DSL ({@code import static dev.bpf4j.isa.Reg.*}). */
public enum Reg {
    R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10;

    /** The register number as encoded in dst/src. */
    public int num() { return ordinal(); }
}
