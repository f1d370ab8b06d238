package dev.bpf4j.bench;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperIds;
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
 * Update-heavy programs, {@link #ROUNDS} rounds a run, on the interpreter, the JIT with its native hash
 * writes and spin locks ({@code jit}), and the JIT with the Java helpers forced ({@code jit-java}:
 * {@code -Dbpf4j.jit.nativeHelpers=false} while loading): {@code update} overwrites one of 8 keys of a
 * HASH map, {@code update_delete} inserts a key and deletes it again (free list and chain each round),
 * {@code spin_lock} increments an ARRAY value under its {@code bpf_spin_lock}, {@code lru_evict} inserts
 * 64 keys into an 8-element LRU_HASH map (every insert evicts). Each run returns the sum
 * of the update and delete results, 0 (checked at setup; bpf_spin_lock returns nothing).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HashWriteBenchmark {
    static final int ROUNDS = 64;

    @Param({"interp", "jit", "jit-java"})
    public String path;

    @Param({"update", "update_delete", "spin_lock", "lru_evict"})
    public String op;

    private MapTable maps;
    private Executable exe;
    private RunContext context;

    static Program program(MapTable maps, String op) {
        ProgramBuilder b = new ProgramBuilder().mov64(R6, 0).mov64(R7, 0).label("loop");
        long h = maps.handle(0);
        switch (op) {
            case "lru_evict": // key = the round: the map holds the last 8 of 64, so each key is absent again
                b.stxdw(R10, -16, R6).stxw(R10, -4, R6)
                        .lddw(R1, h).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 0)
                        .call(HelperIds.MAP_UPDATE_ELEM).add64(R7, R0);
                break;
            case "update":
                b.stxdw(R10, -16, R6).mov64(R1, R6).and64(R1, 7).stxw(R10, -4, R1)
                        .lddw(R1, h).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 0)
                        .call(HelperIds.MAP_UPDATE_ELEM).add64(R7, R0);
                break;
            case "update_delete":
                b.stxdw(R10, -16, R6).mov64(R1, R6).and64(R1, 7).stxw(R10, -4, R1)
                        .lddw(R1, h).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 1) // BPF_NOEXIST
                        .call(HelperIds.MAP_UPDATE_ELEM).add64(R7, R0)
                        .lddw(R1, h).mov64(R2, R10).add64(R2, -4)
                        .call(HelperIds.MAP_DELETE_ELEM).add64(R7, R0);
                break;
            default: // spin_lock: v = lookup(&0); lock(v); v->count++; unlock(v)
                b.st(dev.bpf4j.isa.Opcodes.W, R10, -4, 0).lddw(R1, h).mov64(R2, R10).add64(R2, -4)
                        .call(HelperIds.MAP_LOOKUP_ELEM).jeq(R0, 0, "done").mov64(R8, R0)
                        .mov64(R1, R8).call(HelperIds.SPIN_LOCK)
                        .ldxdw(R1, R8, 8).add64(R1, 1).stxdw(R8, 8, R1)
                        .mov64(R1, R8).call(HelperIds.SPIN_UNLOCK);
        }
        return b.add64(R6, 1).jlt(R6, ROUNDS, "loop").label("done").mov64(R0, R7).exit().build("hash_write_" + op);
    }

    @Setup(Level.Trial)
    public void setUp() {
        MapDefinition def = op.equals("spin_lock") ? new MapDefinition("values", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(0)
                : op.equals("lru_evict") ? new MapDefinition("values", MapType.LRU_HASH, 4, 8, 8, 0)
                : new MapDefinition("values", MapType.HASH, 4, 8, 8, 0);
        maps = MapTable.create(List.of(def));
        boolean javaHelpers = path.equals("jit-java");
        if (javaHelpers) System.setProperty("bpf4j.jit.nativeHelpers", "false");
        try {
            exe = Bpf.load(program(maps, op), EngineParams.require(javaHelpers ? "jit" : path),
                    LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        } finally {
            if (javaHelpers) System.clearProperty("bpf4j.jit.nativeHelpers");
        }
        RunContext.Builder b = RunContext.builder();
        maps.regions().forEach(b::region);
        context = b.build();
        long got = exe.run(context);
        if (got != 0) throw new IllegalStateException(op + " on " + path + " returned " + got + ", expected 0");
    }

    @Benchmark
    public long run() { return exe.run(context); }

    @TearDown(Level.Trial)
    public void tearDown() {
        exe.close();
        maps.close();
    }
}
