package dev.bpf4j.bench;

import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The cost of one call from Java into the empty program {@code r0 = 0; exit} on each engine; for
 * {@code gcc}, one jffi call of an empty C function (the floor any native engine pays); for
 * {@code gcc-jni}, the same function called through the JNI entry JIT runs use.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EmptyCallBenchmark {
    @Param({"interp", "jit", "jvm", "gcc", "gcc-jni"})
    public String engine;

    private Executable exe;
    private RunContext context;
    private Target gcc;

    @Setup(Level.Trial)
    public void setUp() {
        context = RunContext.builder().arg(1, 0).build();
        if (EngineParams.isGcc(engine)) {
            gcc = new Target.GccTarget(GccLibrary.compile().function("native_empty"), 0, 0, EngineParams.GCC_JNI.equals(engine));
        } else {
            exe = Bpf.load(CallPrograms.empty(), EngineParams.require(engine), LoadOptions.defaults());
            if (exe.run(context) != 0) throw new IllegalStateException("empty program on " + engine + " did not return 0");
        }
    }

    @Benchmark
    public long call() { return exe != null ? exe.run(context) : gcc.run(); }

    @TearDown(Level.Trial)
    public void tearDown() { if (exe != null) exe.close(); }
}
