package dev.bpf4j.engine;

import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.program.Program;
import dev.bpf4j.verifier.Validator;

/** Entry point for running raw programs: validate once, then let an engine load it. */
public final class Bpf {
    private Bpf() {}

    /**
     * Verifies {@code program} and loads it into {@code engine} (an engine with a verifier of its own, the kernel, decides alone).
     *
     * @throws dev.bpf4j.verifier.VerifierException when the verifier rejects it (pc and reason)
     * @throws BpfLoadException                     when the engine cannot load it (an unknown helper, ...)
     */
    public static Executable load(Program program, Engine engine, LoadOptions options) {
        if (engine.verifiesItself()) return engine.load(program, options);
        return engine.load(Validator.analyze(program, options), options);
    }
}
