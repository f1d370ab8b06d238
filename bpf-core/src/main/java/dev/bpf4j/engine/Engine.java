package dev.bpf4j.engine;

import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.program.Program;
import dev.bpf4j.verifier.ValidatedProgram;

/**
 * The one seam every execution backend implements (interpreter, JIT, the Linux kernel through
 * bpf-kernel). An engine turns a verified program into an {@link Executable}; engines must agree bit for bit on
 * results, memory effects and errors (kind + pc).
 */
public interface Engine {
    /** Short name used by the CLI: {@code interp}, {@code jit}, {@code kernel}. */
    String name();

    /**
     * Prepares {@code program}, which has already passed {@link dev.bpf4j.verifier.Validator}.
     * Throws {@link BpfLoadException} when it cannot (e.g. an unknown helper id).
     */
    Executable load(Program program, LoadOptions options);

    /**
     * Prepares a program the verifier accepted, with its per-instruction facts
     * ({@link dev.bpf4j.verifier.InsnAux}): an engine must keep every access the verifier did not
     * type as a stack pointer out of its frames. The default ignores the facts (an engine whose
     * frames no other pointer can reach).
     */
    default Executable load(ValidatedProgram program, LoadOptions options) {
        return load(program.program(), options);
    }

    /**
     * True when a prog-array slot holding {@code target} can be entered by this engine's
     * {@code bpf_tail_call}: an {@link Executable} this engine loaded. Loaders use it to refuse a
     * foreign program at update time; the run checks again. Engines without tail calls say false.
     */
    default boolean canTailCallInto(Object target) { return false; }

    /**
     * True for an engine whose load applies its own verifier in place of bpf4j's (the Linux kernel):
     * {@link Bpf#load} then leaves the verdict to it, so that the kernel stays an oracle for bpf4j's.
     */
    default boolean verifiesItself() { return false; }
}
