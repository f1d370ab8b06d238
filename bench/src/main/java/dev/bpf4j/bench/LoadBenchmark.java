package dev.bpf4j.bench;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Bpf;
import dev.bpf4j.runtime.Engine;
import dev.bpf4j.runtime.LoadOptions;
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
 * Load time: {@link Bpf#load} (verifier plus the engine's compile) and close of a workload's program,
 * per call; divide by the program's slots for the time per 1,000 instructions (report.py does).
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

    private Program program;
    private Engine engine;

    @Setup
    public void setUp() {
        program = Workload.byId(workload).program();
        engine = Engines.require(bpfEngine);
    }

    @Benchmark
    public Object load() {
        var e = Bpf.load(program, engine, LoadOptions.defaults().withEntryArgs(2));
        e.close();
        return e;
    }
}
