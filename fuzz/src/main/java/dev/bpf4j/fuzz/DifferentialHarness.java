package dev.bpf4j.fuzz;

import dev.bpf4j.api.Engines;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.LoadOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a program on several engines and compares everything they show ({@link Oracle}); for users'
 * own JUnit tests as much as for the fuzzer:
 *
 * <pre>{@code
 * DifferentialHarness.interpAndJit().assertAgree(program, memBlock);   // throws AssertionError with a report
 * DifferentialReport r = DifferentialHarness.interpAndJit().run(program, memBlock);
 * }</pre>
 *
 * Programs run in the conformance suites' convention (r1 = memory block or 0, r2 = its length, see
 * {@link FuzzConventions}) unless other {@link LoadOptions} are given. The load goes through
 * {@link dev.bpf4j.engine.Bpf#load}: a program the gate refuses on every engine is "rejected", not a difference.
 */
public final class DifferentialHarness {
    private final List<Engine> engines;
    private final LoadOptions options;

    public DifferentialHarness(List<Engine> engines, LoadOptions options) {
        if (engines.isEmpty()) throw new IllegalArgumentException("no engine to compare");
        this.engines = List.copyOf(engines);
        this.options = options;
    }

    public DifferentialHarness(List<Engine> engines) { this(engines, FuzzConventions.loadOptions()); }

    /** The engines named (e.g. "interp", "jit"), in that order; the first is the reference. */
    public static DifferentialHarness of(List<String> engineNames) {
        List<Engine> es = new ArrayList<>();
        for (String n : engineNames) es.add(Engines.byName(n));
        return new DifferentialHarness(es);
    }

    /** The interpreter (reference) and the JIT. */
    public static DifferentialHarness interpAndJit() { return of(List.of("interp", "jit")); }

    /** Every in-process engine: the interpreter (reference), the JIT and the JVM-bytecode engine. */
    public static DifferentialHarness inProcess() { return of(List.of("interp", "jit", "jvm")); }

    public List<Engine> engines() { return engines; }

    public DifferentialHarness withOptions(LoadOptions o) { return new DifferentialHarness(engines, o); }

    public DifferentialReport run(FuzzCase c) {
        List<EngineOutcome> outcomes = new ArrayList<>();
        for (Engine e : engines) outcomes.add(Execution.run(e, c, options));
        return new DifferentialReport(c, outcomes, Oracle.compare(outcomes));
    }

    public DifferentialReport run(Program p, byte[] mem) { return run(new FuzzCase(p.name(), p.insns(), mem)); }

    /** Throws an {@link AssertionError} with {@link DifferentialReport#describe()} when the engines differ. */
    public DifferentialReport assertAgree(Program p, byte[] mem) {
        DifferentialReport r = run(p, mem);
        if (!r.agree()) throw new AssertionError(r.describe());
        return r;
    }
}
