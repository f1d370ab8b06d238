package dev.bpf4j.kernel;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.LoadOptions;

import java.util.Objects;

/**
 * The Linux kernel as a bpf4j engine ({@code kernel}), for differential testing: the program runs
 * as BPF_PROG_TYPE_SYSCALL through BPF_PROG_TEST_RUN, under the kernel's own verifier, JIT and
 * helpers. The mapping of a {@link dev.bpf4j.runtime.RunContext} onto the kernel (memory regions
 * mirrored in array maps, the full r0 returned through an epilogue) is described in
 * {@link KernelTranslation} and docs/kernel-engine.md.
 *
 * <p>{@link #load} refuses programs whose helper ids mean other helpers in the kernel than in
 * {@link LoadOptions#helpers()}; the kernel's verdict on the program comes at the first run
 * ({@link KernelExecutable#prepare}).
 */
public final class KernelEngine implements Engine {
    public static final String NAME = "kernel";

    @Override public String name() { return NAME; }

    /** Linux's verifier decides what loads here. */
    @Override public boolean verifiesItself() { return true; }

    @Override public KernelExecutable load(Program program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        if (program.length() == 0) throw new KernelLoadException("program '" + program.name() + "' is empty");
        KernelHelpers.checkComparable(program, options.helpers());
        return new KernelExecutable(program, options.entryArgs());
    }
}
