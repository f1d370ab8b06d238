package dev.bpf4j.bench;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
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
 * One helper call per run, on the interpreter, on the JIT with the helper's native code ({@code jit-native})
 * and on the JIT with the Java body ({@code jit-java}, {@code -Dbpf4j.jit.nativeHelpers=false} at load):
 * <ul>
 *   <li>{@code ringbuf_output}: 32 bytes from the frame into a 64 KiB ring ({@code BPF_RB_NO_WAKEUP}); when the
 *       ring is full the benchmark drops every record (consumer position := producer position), as a consumer
 *       that skips them, so the run times the producer alone;</li>
 *   <li>{@code ringbuf_reserve}: {@code bpf_ringbuf_reserve} of 32 bytes, four stores into the sample and
 *       {@code bpf_ringbuf_submit} ({@code BPF_RB_NO_WAKEUP}), the ring dropped when full as above (r0 1);</li>
 *   <li>{@code probe_read_other}: {@code bpf_probe_read_user} of 64 bytes of native memory outside the run's
 *       regions (what a probe reads of its process: {@code process_vm_readv} on every path);</li>
 *   <li>{@code probe_read_region}: the same from a region of the run (the Java body copies it directly; the
 *       native code still asks the kernel).</li>
 *   <li>{@code probe_read_str}: {@code bpf_probe_read_str} of a 40-byte string (41 with its NUL, size 64) from a
 *       region of the run (the native code copies it byte by byte up to the NUL, as the Java body does).</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class NativeHelperBenchmark {
    @Param({"ringbuf_output", "ringbuf_reserve", "probe_read_other", "probe_read_region", "probe_read_str"})
    public String helper;

    @Param({"interp", "jit-native", "jit-java"})
    public String way;

    private MapTable maps;
    private RingBufMap ring;
    private long source;
    private Executable exe;
    private RunContext context;

    static Program ringbufOutput(long handle) {
        return new ProgramBuilder()
                .st(Opcodes.DW, R10, -32, 1).st(Opcodes.DW, R10, -24, 2).st(Opcodes.DW, R10, -16, 3).st(Opcodes.DW, R10, -8, 4)
                .lddw(R1, handle).mov64(R2, R10).add64(R2, -32).mov64(R3, 32).mov64(R4, (int) MapFlags.BPF_RB_NO_WAKEUP)
                .call(HelperIds.RINGBUF_OUTPUT)
                .exit()
                .build("ringbuf_output");
    }

    static Program ringbufReserve(long handle) {
        return new ProgramBuilder()
                .lddw(R1, handle).mov64(R2, 32).mov64(R3, 0)
                .call(HelperIds.RINGBUF_RESERVE)
                .jmp(Opcodes.JNE, R0, 0, "reserved")
                .mov64(R0, 1).exit()
                .label("reserved")
                .st(Opcodes.DW, R0, 0, 1).st(Opcodes.DW, R0, 8, 2).st(Opcodes.DW, R0, 16, 3).st(Opcodes.DW, R0, 24, 4)
                .mov64(R1, R0).mov64(R2, (int) MapFlags.BPF_RB_NO_WAKEUP)
                .call(HelperIds.RINGBUF_SUBMIT)
                .mov64(R0, 0).exit()
                .build("ringbuf_reserve");
    }

    static Program probeRead(long src) {
        return new ProgramBuilder()
                .mov64(R1, R10).add64(R1, -64).mov64(R2, 64).lddw(R3, src)
                .call(HelperIds.PROBE_READ_USER)
                .ldxdw(R1, R10, -8).add64(R0, R1)
                .exit()
                .build("probe_read");
    }

    /** The string's length, NUL not included. */
    static final int STRING = 40;

    static Program probeReadStr(long src) {
        return new ProgramBuilder()
                .mov64(R1, R10).add64(R1, -64).mov64(R2, 64).lddw(R3, src)
                .call(HelperIds.PROBE_READ_STR)
                .exit()
                .build("probe_read_str");
    }

    @Setup(Level.Trial)
    public void setUp() {
        maps = MapTable.create(List.of(new MapDefinition("events", MapType.RINGBUF, 0, 0, 64 * 1024, 0)));
        ring = (RingBufMap) maps.maps().get(0);
        source = NativeMemory.allocate(64);
        boolean str = helper.equals("probe_read_str");
        for (int i = 0; i < 64; i++) NativeMemory.putByte(source + i, (byte) (!str ? i : i < STRING ? 'a' + i % 26 : 0));
        Program p = helper.equals("ringbuf_output") ? ringbufOutput(maps.handle(0))
                : helper.equals("ringbuf_reserve") ? ringbufReserve(maps.handle(0)) : str ? probeReadStr(source) : probeRead(source);
        RunContext.Builder b = RunContext.builder();
        if (helper.equals("ringbuf_reserve")) maps.regions().forEach(b::region);
        if (helper.equals("probe_read_region") || str) b.region(new MemoryRegion("source", source, 64, false));
        context = b.build();
        LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
        if (way.equals("jit-java")) System.setProperty("bpf4j.jit.nativeHelpers", "false");
        try {
            exe = Bpf.load(p, EngineParams.require(way.equals("interp") ? "interp" : "jit"), o);
        } finally {
            System.clearProperty("bpf4j.jit.nativeHelpers");
        }
        long got = run();
        long want = helper.startsWith("ringbuf_") ? 0 : str ? STRING + 1 : 0x3f3e3d3c3b3a3938L;
        if (got != want) throw new IllegalStateException(helper + " on " + way + " returned " + got + ", expected " + want);
    }

    @Benchmark
    public long run() {
        long r0 = exe.run(context);
        if (r0 == -Errno.EAGAIN || r0 == 1) NativeMemory.getAndSetLong(ring.consumerPosAddress(), ring.producerPos()); // full: drop the records
        return r0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        exe.close();
        maps.close();
        NativeMemory.free(source);
    }
}
