package dev.bpf4j.bench;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
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

import static dev.bpf4j.isa.Reg.*;

/**
 * The helper-heavy workload: a loop of {@link #ROUNDS} rounds, each {@code bpf_ktime_get_ns} then
 * {@code bpf_map_update_elem} of a hash map (key = round & 7, value = the time): the JIT runs the
 * update as native code under the bucket lock ({@code InlineHashUpdate}; with {@code
 * -Dbpf4j.jit.nativeHelpers=false} it reaches the Java body through its upcall bridge), the
 * interpreter and the JVM engine call it as Java. {@link HashWriteBenchmark} puts the paths side by side. Returns the sum of the updates' results: 0 when all succeeded (checked at setup).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HelperLoopBenchmark {
    static final int ROUNDS = 64;

    @Param({"interp", "jit", "jvm"})
    public String bpfEngine;

    private MapTable maps;
    private Executable exe;
    private RunContext context;

    static Program program(MapTable maps) {
        return new ProgramBuilder()
                .mov64(R6, 0).mov64(R7, 0)
                .label("loop")
                .call(HelperIds.KTIME_GET_NS).stxdw(R10, -16, R0)
                .mov64(R1, R6).and64(R1, 7).stxw(R10, -4, R1)
                .lddw(R1, maps.handle("times")).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 0)
                .call(HelperIds.MAP_UPDATE_ELEM)
                .add64(R7, R0) // no branch on r0: the verifier prunes each round's state
                .add64(R6, 1).jlt(R6, ROUNDS, "loop")
                .mov64(R0, R7).exit()
                .build("helper_loop");
    }

    @Setup(Level.Trial)
    public void setUp() {
        maps = MapTable.create(List.of(new MapDefinition("times", MapType.HASH, 4, 8, 8, 0)));
        exe = Bpf.load(program(maps), EngineParams.require(bpfEngine), LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        RunContext.Builder b = RunContext.builder();
        maps.regions().forEach(b::region);
        context = b.build();
        long got = exe.run(context);
        if (got != 0) throw new IllegalStateException("helper_loop on " + bpfEngine + " returned " + got + ", expected 0");
    }

    @Benchmark
    public long run() { return exe.run(context); }

    @TearDown(Level.Trial)
    public void tearDown() {
        exe.close();
        maps.close();
    }
}
