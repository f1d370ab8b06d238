package dev.bpf4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.NativeMemory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * XDP programs written as users write them ({@code src/main/c/xdp_workloads.h}: {@code ctx->data},
 * {@code ctx->data_end}, a bounds check before each access), built by clang with its default CPU and
 * with {@code -mcpu=v3}, each run through the object API with {@code repeat} on the interpreter,
 * the JIT and the JVM-bytecode engine, in Linux through bpf-kernel's {@link KernelObject} (BPF_PROG_TEST_RUN: the kernel JIT), and
 * gcc -O2 of the same C called from a C loop: every column times a loop of runs inside its engine, as
 * the kernel's {@code bpf_test_run} does. The user-space columns count the calling thread's CPU time,
 * as the kernel's timer stops while its loop is rescheduled: on a loaded machine wall time would
 * charge them for other processes. One 1,500-byte Ethernet/IPv4/TCP frame. Refuses to report
 * when the columns' return values differ. Columns are measured in turn within each round; the
 * figure is the median round, in ns per run.
 * {@code java -cp bench/target/benchmarks.jar dev.bpf4j.bench.XdpWorkloadTiming [rounds] [millis]}.
 */
public final class XdpWorkloadTiming {
    private XdpWorkloadTiming() {}

    static final List<String> PROGRAMS = List.of("xdp_pass", "xdp_fnv1a", "xdp_xorshift", "xdp_sort", "xdp_parse");
    /** The object builds: resource name and how clang built it. */
    static final Map<String, String> BUILDS = new LinkedHashMap<>();
    static {
        BUILDS.put("xdp_workloads.o", "default CPU");
        BUILDS.put("xdp_workloads.v3.o", "-mcpu=v3");
    }
    static final List<String> COLUMNS = List.of("interp", "jit", "jvm", "kernel", "gcc");

    /** The frame every program reads: the bench's TCP packet padded with seeded random payload to 1,500 bytes. */
    static byte[] packet() {
        byte[] tcp = WorkloadInputs.tcpPacket();
        byte[] p = Arrays.copyOf(tcp, 1500);
        byte[] payload = WorkloadInputs.randomBytes(1500 - tcp.length, 1500);
        System.arraycopy(payload, 0, p, tcp.length, payload.length);
        return p;
    }

    static BpfObjectSpec spec(String resource) {
        try (InputStream in = XdpWorkloadTiming.class.getResourceAsStream("/xdp/" + resource)) {
            if (in == null) throw new IllegalStateException("missing resource /xdp/" + resource);
            return BpfObjectSpec.parse(in.readAllBytes(), resource);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last run's retval and the average ns per run. */
    record Timed(long retval, double ns) {}

    /** One column's runner: {@code times} runs in a loop inside its engine. */
    interface Column extends AutoCloseable {
        Timed run(int times);

        @Override default void close() {}
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 100;
        byte[] packet = packet();
        KernelBpf.Availability kernel = KernelBpf.availability();
        GccLibrary gcc = GccLibrary.gccAvailable() ? GccLibrary.compile(List.of("xdp_workloads.h", "xdp_native.c")) : null;
        System.out.println("| program | clang build | interp | JIT | jvm | kernel JIT | gcc -O2 | JIT / kernel | jvm / kernel | JIT / gcc |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        boolean agreed = true;
        for (String program : PROGRAMS) {
            for (Map.Entry<String, String> build : BUILDS.entrySet()) {
                BpfObjectSpec spec = spec(build.getKey());
                Map<String, Column> columns = new LinkedHashMap<>();
                try {
                    columns.put("interp", objectColumn(spec, program, "interp", packet));
                    columns.put("jit", objectColumn(spec, program, "jit", packet));
                    columns.put("jvm", objectColumn(spec, program, "jvm", packet));
                    if (kernel.available()) columns.put("kernel", kernelColumn(spec, program, packet));
                    if (gcc != null) columns.put("gcc", gccColumn(gcc, program, packet));
                    Map<String, Long> retvals = new LinkedHashMap<>();
                    columns.forEach((n, c) -> retvals.put(n, c.run(1).retval()));
                    if (retvals.values().stream().distinct().count() != 1) {
                        System.out.println("| " + program + " | " + build.getValue() + " | results differ: " + retvals + " |");
                        agreed = false;
                        continue;
                    }
                    Map<String, Double> ns = measure(columns, rounds, millis);
                    System.out.printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", program, build.getValue(),
                            fmt(ns.get("interp")), fmt(ns.get("jit")), fmt(ns.get("jvm")), fmt(ns.get("kernel")), fmt(ns.get("gcc")),
                            ratio(ns.get("jit"), ns.get("kernel")), ratio(ns.get("jvm"), ns.get("kernel")), ratio(ns.get("jit"), ns.get("gcc")));
                } finally {
                    columns.values().forEach(Column::close);
                }
            }
        }
        if (!kernel.available()) System.out.println("\nkernel column: " + kernel.reason());
        if (gcc == null) System.out.println("\ngcc column: no gcc on the PATH");
        if (!agreed) System.exit(1);
    }

    /** Per column, the median over rounds of the average ns per run, each measurement lasting about {@code millis}. */
    static Map<String, Double> measure(Map<String, Column> columns, int rounds, long millis) {
        Map<String, Integer> times = new LinkedHashMap<>();
        columns.forEach((n, c) -> times.put(n, calibrate(c::run, millis)));
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, Column> c : columns.entrySet()) {
                int n = times.get(c.getKey());
                samples.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(c.getValue().run(n).ns());
            }
        }
        Map<String, Double> out = new LinkedHashMap<>();
        samples.forEach((n, s) -> {
            s.sort(null);
            out.put(n, s.get(s.size() / 2));
        });
        return out;
    }

    /**
     * The repeat count whose run lasts about {@code millis}, after ten such periods of warm-up (the
     * interpreter's per-program dispatch class and the JIT's Java side need HotSpot's compilers).
     */
    static int calibrate(IntFunction<Timed> run, long millis) {
        int n = grow(run, millis);
        for (long end = cpuNanos() + 10 * millis * 1_000_000L; cpuNanos() < end; ) run.apply(n);
        return grow(run, millis);
    }

    private static int grow(IntFunction<Timed> run, long millis) {
        int n = 1;
        while (true) {
            long start = cpuNanos();
            run.apply(n);
            long took = cpuNanos() - start;
            if (took >= millis * 1_000_000L || n >= 1 << 28) {
                return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (long) n * millis * 1_000_000L / Math.max(took, 1)));
            }
            n *= 2;
        }
    }

    static Column objectColumn(BpfObjectSpec spec, String program, String engine, byte[] packet) {
        BpfObject obj = BpfObject.open(spec).load(ObjectLoadOptions.engine(engine));
        RunOptions options = RunOptions.packet(packet);
        return new Column() {
            /** Timed around the call (the frame is built once per call): a double, where RunResult has whole ns. */
            @Override public Timed run(int times) {
                long start = cpuNanos();
                RunResult r = obj.program(program).run(options.withRepeat(times));
                return new Timed(r.retval(), (cpuNanos() - start) / (double) times);
            }

            @Override public void close() { obj.close(); }
        };
    }

    static Column kernelColumn(BpfObjectSpec spec, String program, byte[] packet) {
        KernelObject k = KernelObject.load(spec, List.of(program));
        RunOptions options = RunOptions.packet(packet);
        return new Column() {
            /** The kernel's own average (whole ns), without the system call and the copies around the loop. */
            @Override public Timed run(int times) {
                RunResult r = k.run(program, options.withRepeat(times));
                return new Timed(r.retval(), r.averageDurationNs());
            }

            @Override public void close() { k.close(); }
        };
    }

    private static final CallContext REPEAT = CallContext.getCallContext(Type.UINT32,
            new Type[]{Type.POINTER, Type.POINTER, Type.UINT64}, CallingConvention.DEFAULT, false);

    /** gcc's {@code native_<name>_repeat(data, end, times)} over a native copy of the packet. */
    static Column gccColumn(GccLibrary gcc, String program, byte[] packet) {
        long fn = gcc.address("native_" + program + "_repeat");
        long data = NativeMemory.allocate(packet.length);
        NativeMemory.write(data, packet, 0, packet.length);
        return new Column() {
            @Override public Timed run(int times) {
                long start = cpuNanos();
                long r = Invoker.getInstance().invokeN3(REPEAT, fn, data, data + packet.length, times);
                return new Timed(r & 0xffffffffL, (cpuNanos() - start) / (double) times);
            }

            @Override public void close() { NativeMemory.free(data); }
        };
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID). */
    static long cpuNanos() { return THREADS.getCurrentThreadCpuTime(); }

    private static String fmt(Double ns) {
        if (ns == null) return "–";
        return ns >= 100 ? String.format("%,.0f", ns) : String.format("%.1f", ns);
    }

    private static String ratio(Double a, Double b) {
        return a == null || b == null || b == 0 ? "–" : String.format("%.2f×", a / b);
    }
}
