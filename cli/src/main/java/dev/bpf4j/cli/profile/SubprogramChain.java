package dev.bpf4j.cli.profile;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;

import static dev.bpf4j.isa.Reg.*;

/**
 * The bundled profiling workload: a program whose main calls a 3-level chain of BPF-to-BPF
 * subprograms, built with the builder (no clang). main loops r1 times over sub1; sub1 mixes its
 * argument 16 times, then calls sub2; sub2 calls the tiny sub3 16 times in a loop, so that many
 * samples land on sub3's prologue and {@code ret} — where a plain frame-pointer walk, and the
 * kernel's CALLCHAIN, lose sub2. Under the JIT each function is its own {@code bpf_prog_<tag>_...}
 * symbol (main: {@code bpf_prog_<tag>_demo_chain}, the subprograms {@code bpf_prog_<tag>_F} as the
 * kernel names functions without BTF).
 */
public final class SubprogramChain {
    private SubprogramChain() {}

    public static final String NAME = "demo_chain";
    /** Outer iterations per run: about 300 instructions each, far inside the default budget. */
    public static final long ITERATIONS_PER_RUN = 100;

    /** The name of {@link #probeProgram()}. */
    public static final String PROBE_NAME = "demo_probe";
    /** Outer iterations per probe hit of {@link #probeProgram()}. */
    public static final int ITERATIONS_PER_HIT = 25;

    public static Program program() {
        return build(new ProgramBuilder().mov64(R6, R1), NAME);
    }

    /**
     * The same chain for a native probe: there r1 is the traced function's pt_regs, so main runs a
     * fixed {@link #ITERATIONS_PER_HIT} iterations instead; the subprograms are the same code.
     */
    public static Program probeProgram() {
        return build(new ProgramBuilder().mov64(R6, ITERATIONS_PER_HIT), PROBE_NAME);
    }

    private static Program build(ProgramBuilder withR6, String name) {
        return withR6
                // main(n = r6): r7 = sum of sub1(i) for i = n .. 1
                .mov64(R7, 0)
                .label("main_loop")
                .mov64(R1, R6).callLocal("sub1").add64(R7, R0)
                .sub64(R6, 1).jne(R6, 0, "main_loop")
                .mov64(R0, R7).exit()
                // sub1(x): 16 rounds of multiply-xor, then sub2 of the result
                .label("sub1")
                .mov64(R6, R1).mov64(R0, R1).mov64(R2, 16)
                .label("sub1_loop")
                .mul64(R0, 31).xor64(R0, R6).add64(R0, 7).sub64(R2, 1).jne(R2, 0, "sub1_loop")
                .mov64(R1, R0).callLocal("sub2").exit()
                // sub2(x): 16 calls of sub3, each result folded into x
                .label("sub2")
                .mov64(R6, R1).mov64(R7, 16)
                .label("sub2_loop")
                .mov64(R1, R6).callLocal("sub3").add64(R6, R0)
                .sub64(R7, 1).jne(R7, 0, "sub2_loop")
                .mov64(R0, R6).exit()
                // sub3(x): a short mix, so its prologue and ret are a large share of its time
                .label("sub3")
                .mov64(R0, R1).mul64(R0, 0x5bd1e995).rsh64(R1, 13).xor64(R0, R1)
                .exit()
                .build(name);
    }
}
