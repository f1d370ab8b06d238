package dev.bpf4j.bench;

import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.Validator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Load time of the engine alone: {@link Engine#load} of a workload's program the verifier has already
 * accepted (its facts computed once, in setup: verification costs every engine the same), then close;
 * divide by the program's slots for the time per 1,000 instructions.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoadBenchmark {
    @Param({"fnv1a", "parse", "xorshift", "sort"})
    public String workload;

    @Param({"interp", "jit", "jvm"})
    public String bpfEngine;

    private static final LoadOptions OPTIONS = LoadOptions.defaults().withEntryArgs(2);
    private ValidatedProgram program;
    private Engine engine;

    @Setup
    public void setUp() {
        program = Validator.analyze(Workload.byId(workload).program(), OPTIONS);
        engine = EngineParams.require(bpfEngine);
    }

    @Benchmark
    public Object load() {
        Executable e = engine.load(program, OPTIONS);
        e.close();
        return e;
    }
}
