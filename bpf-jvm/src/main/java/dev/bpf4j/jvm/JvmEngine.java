package dev.bpf4j.jvm;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.ValidatedProgram;

import java.util.Objects;

/**
 * The JVM-bytecode engine ({@code jvm}): each program becomes hidden classes generated with ASM,
 * which HotSpot compiles like any Java code (docs/jvm-engine.md). Runs wherever a JVM runs, calls
 * Java helpers as plain calls, and is a third independent implementation for differential tests.
 */
public final class JvmEngine implements Engine {
    public static final String NAME = "jvm";

    @Override public String name() { return NAME; }

    @Override public Executable load(Program program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        return new JvmExecutable(program, JvmCompiler.compile(program, options, null));
    }

    /** A verified program: its facts keep every access the verifier did not type as a stack pointer out of the frames. */
    @Override public Executable load(ValidatedProgram program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        return new JvmExecutable(program.program(), JvmCompiler.compile(program.program(), options, program.aux()));
    }

    @Override public boolean canTailCallInto(Object target) { return target instanceof JvmExecutable; }
}
