package dev.bpf4j.verifier;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;

/** The mandatory load-time validator (placeholder until its implementation lands). */
public final class Validator {
    private Validator() {}

    /** Throws {@link VerifierException} naming the pc and the reason when {@code program} is invalid. */
    public static void validate(Program program, LoadOptions options) {
        if (program.length() == 0) throw new VerifierException(program.name(), 0, "empty program");
    }
}
