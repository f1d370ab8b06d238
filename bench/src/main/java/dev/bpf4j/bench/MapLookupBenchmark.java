package dev.bpf4j.bench;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program that counts in a map: one {@code bpf_map_lookup_elem} and an increment, in an ARRAY map
 * ({@code mapKind=array}, {@link CallPrograms#arrayCounter}) or in a HASH map of 64 flows with 16-byte
 * keys ({@code hash}, {@link CallPrograms#hashCounter}); or one that writes an array element with
 * {@code bpf_map_update_elem} ({@code array-update}, {@link CallPrograms#arrayUpdate}). {@code jit}
 * inlines the helper (key and value on the stack, the map a constant); {@code jit-call} is the same
 * JIT with inlining turned off ({@code -Dbpf4j.jit.inlineArrayLookup=false},
 * {@code inlineHashLookup=false}, {@code inlineArrayUpdate=false}), so the helper is a Java helper
 * call. {@code interp} inlines the same helpers (in Java); {@code interp-call} is
 * the interpreter with {@code -Dbpf4j.interp.inlineMapHelpers=false}, which calls the helper's Java
 * body. The helper's cost is this minus {@link EmptyCallBenchmark} for the same engine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MapLookupBenchmark {
    @Param({"interp", "interp-call", "jit", "jit-call", "jvm", "jvm-call"})
    public String lookupEngine;

    @Param({"array", "hash", "array-update"})
    public String mapKind;

    private MapTable maps;
    private Executable exe;
    private RunContext context;

    @Setup(Level.Trial)
    public void setUp() {
        boolean hash = mapKind.equals("hash"), update = mapKind.equals("array-update");
        if (!hash && !update && !mapKind.equals("array")) throw new IllegalArgumentException("unknown mapKind " + mapKind);
        maps = MapTable.create(List.of(hash ? new MapDefinition("flows", MapType.HASH, 16, 8, 64, 0)
                : new MapDefinition("counts", MapType.ARRAY, 4, 8, 4, 0)));
        if (hash) fillFlows(maps.map(0));
        boolean call = lookupEngine.endsWith("-call");
        if (call) INLINING.forEach(p -> System.setProperty(p, "false"));
        try {
            exe = Bpf.load(hash ? CallPrograms.hashCounter(maps.handle(0)) : update ? CallPrograms.arrayUpdate(maps.handle(0))
                            : CallPrograms.arrayCounter(maps.handle(0)),
                    EngineParams.require(lookupEngine.replace("-call", "")), LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        } finally {
            INLINING.forEach(System::clearProperty);
        }
        RunContext.Builder b = RunContext.builder();
        maps.map(0).regions().forEach(b::region);
        context = b.build();
        long first = exe.run(context), second = exe.run(context);
        if (update) {
            long stored = maps.map(0).lookup(new byte[]{2, 0, 0, 0}).map(v -> ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong()).orElse(-1L);
            if (first != 0 || second != 0 || stored != CallPrograms.UPDATE_VALUE) {
                throw new IllegalStateException("update program on " + lookupEngine + " returned " + first + ", " + second
                        + " and stored " + stored + ", expected 0, 0 and " + CallPrograms.UPDATE_VALUE);
            }
        } else if (first != 1 || second != 2) {
            throw new IllegalStateException(mapKind + " counter program on " + lookupEngine + " returned " + first + ", " + second + ", expected 1, 2");
        }
    }

    private static final List<String> INLINING = List.of("bpf4j.jit.inlineArrayLookup", "bpf4j.jit.inlineHashLookup",
            "bpf4j.jit.inlineArrayUpdate", "bpf4j.interp.inlineMapHelpers");

    /** {@link CallPrograms#FLOW_KEY} (value 0) and 63 other flows, so that the lookup walks real chains. */
    private static void fillFlows(BpfMap flows) {
        for (int i = 0; i < 64; i++) {
            ByteBuffer key = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            for (int w : CallPrograms.FLOW_KEY) key.putInt(w);
            key.putInt(8, CallPrograms.FLOW_KEY[2] + i); // another port pair for i > 0
            flows.update(key.array(), new byte[8], MapFlags.BPF_ANY);
        }
    }

    @Benchmark
    public long lookup() { return exe.run(context); } // the name results carry: kept for the map updates too

    @TearDown(Level.Trial)
    public void tearDown() {
        exe.close();
        maps.close();
    }
}
