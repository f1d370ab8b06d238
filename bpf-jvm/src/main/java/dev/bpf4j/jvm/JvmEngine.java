package dev.bpf4j.jvm;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.VerifierStats;

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

    /**
     * A verified program: its facts keep every access the verifier did not type as a stack pointer out
     * of the frames. Where the verifier bounds a run's budget events ({@link VerifierStats#budgetBound})
     * the code counts none, as the JIT's (docs/jvm-engine.md); a run with less budget goes to a
     * counting twin, compiled when first needed. {@code -Dbpf4j.jvm.elideBudget=false} keeps counting.
     */
    @Override public Executable load(ValidatedProgram program, LoadOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        Program p = program.program();
        VerifierStats stats = program.stats();
        boolean elide = stats != null && stats.bounded() && !"false".equals(System.getProperty("bpf4j.jvm.elideBudget"));
        JvmExecutable x = new JvmExecutable(p, JvmCompiler.compile(p, options, program.aux(), !elide));
        if (elide) x.elideBudget(stats.budgetBound(), () -> new JvmExecutable(p, JvmCompiler.compile(p, options, program.aux(), true)));
        return x;
    }

    @Override public boolean canTailCallInto(Object target) { return target instanceof JvmExecutable; }
}
