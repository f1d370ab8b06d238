package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.ValidatedProgram;

import java.util.Objects;

/**
 * The interpreter engine ({@code interp}): the reference semantics of bpf4j. Loading pre-decodes
 * the program (and rejects what it could not run safely, e.g. unknown helper ids) with
 * {@link dev.bpf4j.runtime.BpfLoadException}; running needs no further allocation beyond a
 * per-thread-of-use machine.
 */
public final class InterpreterEngine implements Engine {
    public static final String NAME = "interp";

    @Override public String name() { return NAME; }

    @Override public Executable load(Program program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        return new InterpretedExecutable(program, Decoder.decode(program, options, null));
    }

    /** A verified program: its facts keep every access the verifier did not type as a stack pointer out of the frames. */
    @Override public Executable load(ValidatedProgram program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        return new InterpretedExecutable(program.program(), Decoder.decode(program.program(), options, program.aux()));
    }

    /** Any program this engine loaded (the engine keeps no per-instance state). */
    @Override public boolean canTailCallInto(Object target) { return target instanceof InterpretedExecutable; }
}
