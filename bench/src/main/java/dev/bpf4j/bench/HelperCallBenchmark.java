package dev.bpf4j.bench;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.MapTable;
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

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program that calls one helper once: {@code helper=identity}, a trivial Java helper ({@code call
 * bench_identity; exit}); {@code ktime} and {@code prandom}, the standard {@code bpf_ktime_get_ns} and
 * {@code bpf_get_prandom_u32}, which the JIT calls as native code (their {@code NativeForm}) and the
 * interpreter as their Java bodies. The cost of the
 * helper call itself is this minus {@link EmptyCallBenchmark} for the same engine (the report does
 * the subtraction). The parameter is named apart from {@code engine} so that
 * {@code -p engine=...,gcc} never reaches it: gcc has no BPF helpers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HelperCallBenchmark {
    private static final long ARG = 42;

    @Param({"interp", "jit", "jvm"})
    public String bpfEngine;

    @Param({"identity", "ktime", "prandom"})
    public String helper;

    private Executable exe;
    private RunContext context;

    @Setup(Level.Trial)
    public void setUp() {
        context = RunContext.builder().arg(1, ARG).build();
        if (helper.equals("identity")) {
            exe = Bpf.load(CallPrograms.helperOnce(), EngineParams.require(bpfEngine), LoadOptions.defaults().withHelpers(CallPrograms.IDENTITY_HELPERS));
            check(exe.run(context) == ARG, "" + ARG);
            return;
        }
        boolean ktime = helper.equals("ktime");
        if (!ktime && !helper.equals("prandom")) throw new IllegalArgumentException("unknown helper " + helper);
        exe = Bpf.load(CallPrograms.standardOnce(ktime ? HelperIds.KTIME_GET_NS : HelperIds.GET_PRANDOM_U32, helper),
                EngineParams.require(bpfEngine), LoadOptions.defaults().withHelpers(BpfHelpers.registry(MapTable.create(List.of()))));
        long before = System.nanoTime(), got = exe.run(context), after = System.nanoTime();
        if (ktime) check(got >= before && got <= after, "a time in [" + before + ", " + after + "]");
        else check(got >= 0 && got <= 0xffffffffL && exe.run(context) != got, "two different u32s");
    }

    private void check(boolean ok, String expected) {
        if (!ok) throw new IllegalStateException(helper + " program on " + bpfEngine + " did not return " + expected);
    }

    @Benchmark
    public long call() { return exe.run(context); }

    @TearDown(Level.Trial)
    public void tearDown() { exe.close(); }
}
