package dev.bpf4j.bench;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.runtime.Bpf;
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
 * A program that counts in an ARRAY map ({@link CallPrograms#arrayCounter}): one
 * {@code bpf_map_lookup_elem} and an increment. {@code jit} inlines the lookup (the key is on the
 * stack, the map a constant); {@code jit-call} is the same JIT with inlining turned off
 * ({@code -Dbpf4j.jit.inlineArrayLookup=false}), so the lookup is a Java helper call through the
 * jffi closure; the interpreter always calls the helper. The lookup's cost is this minus
 * {@link EmptyCallBenchmark} for the same engine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MapLookupBenchmark {
    @Param({"interp", "jit", "jit-call"})
    public String lookupEngine;

    private MapTable maps;
    private Executable exe;
    private RunContext context;

    @Setup(Level.Trial)
    public void setUp() {
        maps = MapTable.create(List.of(new MapDefinition("counts", MapType.ARRAY, 4, 8, 4, 0)));
        boolean call = lookupEngine.equals("jit-call");
        if (call) System.setProperty("bpf4j.jit.inlineArrayLookup", "false");
        try {
            exe = Bpf.load(CallPrograms.arrayCounter(maps.handle(0)), Engines.require(call ? "jit" : lookupEngine),
                    LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        } finally {
            System.clearProperty("bpf4j.jit.inlineArrayLookup");
        }
        RunContext.Builder b = RunContext.builder();
        maps.map(0).regions().forEach(b::region);
        context = b.build();
        long first = exe.run(context), second = exe.run(context);
        if (first != 1 || second != 2) {
            throw new IllegalStateException("counter program on " + lookupEngine + " returned " + first + ", " + second + ", expected 1, 2");
        }
    }

    @Benchmark
    public long lookup() { return exe.run(context); }

    @TearDown(Level.Trial)
    public void tearDown() {
        exe.close();
        maps.close();
    }
}
