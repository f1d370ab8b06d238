package dev.bpf4j.bench;

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
 * One call of a workload on one engine: {@code interp}, {@code jit} or the {@code gcc} baseline, called
 * through jffi ({@code gcc}) or through the JIT's own JNI entry ({@code gcc-jni}) (bench/run.sh
 * passes only the engines that are present). Setup refuses to measure unless every
 * available engine, gcc and the step counter return the same value for the workload.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WorkloadBenchmark {
    @Param({"fnv1a", "parse", "xorshift", "sort"})
    public String workload;

    @Param({"interp", "jit", "jvm", "gcc", "gcc-jni"})
    public String engine;

    private DataBuffer data;
    private Target target;

    @Setup(Level.Trial)
    public void setUp() {
        Workload w = Workload.byId(workload);
        GccLibrary gcc = GccLibrary.gccAvailable() ? GccLibrary.compile() : null;
        if (EngineParams.isGcc(engine) && gcc == null) throw new IllegalStateException("gcc is not installed");
        long expected = Agreement.require(w, gcc);
        data = new DataBuffer(w.input());
        target = Target.create(engine, w, data, gcc);
        long got = target.run();
        if (got != expected) {
            throw new IllegalStateException(String.format("%s on %s returned 0x%x, expected 0x%x", workload, engine, got, expected));
        }
    }

    @Benchmark
    public long run() { return target.run(); }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (target != null) target.close();
        if (data != null) data.close();
    }
}
