package dev.bpf4j.jit;

import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.Validator;

/**
 * What a differential test over generated packet programs counts: the programs it compared, the
 * ones with a guarded copy, the accesses and byte loads those copies leave unchecked or merge,
 * and the runs that ended in an error or returned (its assertions check that each kind occurred).
 */
final class ProofTally {
    int compared, withCopy, unchecked, combined, errors, clean;

    /** {@code p} compiled and counted; null when the validator rejects it (the generators make some such). */
    CompiledProgram compile(Program p, LoadOptions options) {
        try {
            Validator.validate(p, options);
        } catch (BpfLoadException rejected) {
            return null;
        }
        CompiledProgram c = Jit.LOADER.compile(p, options);
        if (c.proofs().guardedOffset() >= 0) withCopy++;
        unchecked += c.proofs().guardedPcs().length;
        combined += c.proofs().guardedCombinedPcs().length;
        return c;
    }

    /** Counts one run by the interpreter's outcome. */
    void run(String outcome) {
        if (outcome.startsWith("r0=")) clean++;
        else errors++;
    }
}
