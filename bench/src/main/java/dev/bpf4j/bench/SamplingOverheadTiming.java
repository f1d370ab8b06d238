package dev.bpf4j.bench;

import dev.bpf4j.cli.profile.SubprogramChain;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;
import dev.bpf4j.api.Engines;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What perf-style sampling costs a CPU-bound workload: the JIT's subprogram chain run from Java a
 * fixed number of times, in alternating chunks without sampling and with the {@link Profiler}
 * sampling every thread at 99 Hz and at 999 Hz (16 KiB stack copies, unwound as they come). Per
 * setting: the workload thread's CPU time for a chunk (user + system, so it includes the kernel's
 * sample handling and stack copies in its context) against the unsampled chunk of the same round
 * (median of the per-round ratios: a loaded machine changes CPU times by tens of percent within a
 * minute); the CPU of the sampler's reader and unwinder threads, also per second of wall time;
 * samples and lost samples. Wall times are not compared: other processes take the cores. The total
 * overhead of a round adds the workload's change and the sampler threads' CPU, both over the
 * unsampled chunk's workload CPU; printed as median and mean with the standard deviation over rounds.
 * MODE {@code per-chunk} (the default) opens a new profiler per sampled chunk, so its start and stop
 * (≈22 events and rings) are counted; {@code steady} starts one profiler per rate before the rounds
 * and turns its sampling on for its chunks and off otherwise (PERF_EVENT_IOC_ENABLE / _DISABLE), as
 * a long profile runs: only the active profiler's threads are counted (the paused one's reader still
 * wakes for its timers). {@code perf} is {@code steady} with Linux {@code perf record} in place of
 * bpf4j's sampler (same event, rates and stack copies: {@link PerfRecordControl}), the baseline of
 * what the kernel's sampling alone costs the workload; the "sampler threads" column is then perf's
 * own process CPU (10 ms ticks).
 * <pre>java -cp bench/target/benchmarks.jar dev.bpf4j.bench.SamplingOverheadTiming [ROUNDS] [CHUNK_SECONDS] [per-chunk|steady|perf]</pre>
 */
public final class SamplingOverheadTiming {
    private SamplingOverheadTiming() {}

    private static final long[] RATES = {0, 99, 999};

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        double chunkSeconds = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        String mode = args.length > 2 ? args[2] : "per-chunk";
        if (!List.of("per-chunk", "steady", "perf").contains(mode)) throw new IllegalArgumentException("mode " + mode + ": per-chunk, steady or perf");
        boolean perf = mode.equals("perf"), steady = perf || mode.equals("steady");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Executable exe = Engines.byName("jit").load(SubprogramChain.program(), LoadOptions.defaults())) {
            RunContext ctx = RunContext.builder().arg(1, SubprogramChain.ITERATIONS_PER_RUN).build();
            // Warm up, then size a chunk to about CHUNK_SECONDS.
            long t0 = System.nanoTime(), n = 0;
            while (System.nanoTime() - t0 < 2_000_000_000L) { exe.run(ctx); n++; }
            long runs = (long) (n / 2.0 * chunkSeconds);
            // Warm the sampler's own code (class loading, JIT compilation, ELF symbols) outside the measurement.
            for (long hz : new long[] {99, 999}) {
                Profiler warm = Profiler.ofProcess(SamplerOptions.atFrequency(hz)).start();
                for (long r = 0; r < n / 4; r++) exe.run(ctx);
                warm.stop();
                warm.stacks();
            }
            System.out.printf("mode %s: %s%n", mode, perf ? "one perf record per rate for the whole run, enabled only for its chunks"
                    : steady ? "one profiler per rate for the whole run, sampling on only for its chunks"
                    : "a new profiler per sampled chunk (its start and stop counted)");
            System.out.printf("%d runs per chunk (%d iterations of main each), %d rounds%n", runs, SubprogramChain.ITERATIONS_PER_RUN, rounds);
            Profiler[] kept = new Profiler[RATES.length];
            PerfRecordControl[] perfs = new PerfRecordControl[RATES.length];
            if (perf) {
                for (int i = 1; i < RATES.length; i++) perfs[i] = new PerfRecordControl(RATES[i]);
            } else if (steady) {
                for (int i = 1; i < RATES.length; i++) {
                    kept[i] = Profiler.ofProcess(SamplerOptions.atFrequency(RATES[i])).start();
                    kept[i].setSampling(false);
                }
            }
            List<List<double[]>> results = new ArrayList<>();
            for (long ignored : RATES) results.add(new ArrayList<>());
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < RATES.length; k++) {
                    int i = (k + round) % RATES.length;   // rotate the order: no setting always runs first
                    long hz = RATES[i];
                    if (perf) {
                        PerfRecordControl q = perfs[i];
                        long p0 = q == null ? 0 : q.cpuNanos();
                        if (q != null) q.setSampling(true);
                        Chunk c = Chunk.run(exe, ctx, runs, threads, os);
                        if (q != null) q.setSampling(false);
                        results.get(i).add(new double[] {c.wall(), c.others(os), 0, 0, c.mine(), q == null ? 0 : q.cpuNanos() - p0, 0});
                        continue;
                    }
                    if (steady) {
                        Profiler p = kept[i];
                        long[] c0 = p == null ? new long[2] : cpuOf(threads, p.threads());
                        long s0 = p == null ? 0 : p.samplesSoFar(), l0 = p == null ? 0 : p.lostSoFar();
                        if (p != null) p.setSampling(true);
                        Chunk c = Chunk.run(exe, ctx, runs, threads, os);
                        if (p != null) p.setSampling(false);
                        long[] t1 = p == null ? new long[2] : cpuOf(threads, p.threads());
                        results.get(i).add(new double[] {c.wall(), c.others(os), p == null ? 0 : p.samplesSoFar() - s0, p == null ? 0 : p.lostSoFar() - l0,
                                c.mine(), t1[0] - c0[0], t1[1] - c0[1]});
                        continue;
                    }
                    Profiler p = hz == 0 ? null : Profiler.ofProcess(SamplerOptions.atFrequency(hz)).start();
                    Chunk c = Chunk.run(exe, ctx, runs, threads, os);
                    long[] split = {cpuOf(threads, "bpf4j-sampler"), cpuOf(threads, "bpf4j-unwinder")};
                    SamplerStats s = p == null ? null : p.stop();
                    results.get(i).add(new double[] {c.wall(), c.others(os), s == null ? 0 : s.samples(), s == null ? 0 : s.lost(), c.mine(), split[0], split[1]});
                }
            }
            // Paired by round: chunks of one round ran within seconds of each other, under the same load from other processes.
            // Overhead of a setting in a round = (its workload CPU - the unsampled workload CPU + the sampler threads' CPU)
            // / the unsampled workload CPU: what sampling added to the CPU the same work took.
            System.out.println("setting   workload CPU vs none: median (middle half) | mean +- sd   sampler threads / workload CPU: median | mean +- sd"
                    + "   total overhead: median | mean +- sd   reader + unwinder ms/chunk   of a CPU per wall second   µs per sample   samples/chunk  lost");
            for (int i = 1; i < RATES.length; i++) {
                List<double[]> rows = results.get(i);
                double[] change = new double[rounds], threadsShare = new double[rounds], total = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    double none = results.get(0).get(r)[4];
                    change[r] = rows.get(r)[4] / none - 1;
                    threadsShare[r] = (rows.get(r)[5] + rows.get(r)[6]) / none;
                    total[r] = change[r] + threadsShare[r];
                }
                double threadsNanos = median(rows, 5) + median(rows, 6);
                System.out.printf("%-8s  %s   %s   %s   %7.1f + %5.1f   %6.2f%%   %6.1f   %10.0f  %6.0f%n", RATES[i] + " Hz", spread(change, true),
                        spread(threadsShare, false), spread(total, false), median(rows, 5) / 1e6, median(rows, 6) / 1e6,
                        100 * threadsNanos / median(rows, 0), threadsNanos / 1e3 / Math.max(1, median(rows, 2)), median(rows, 2),
                        rows.stream().mapToDouble(r -> r[3]).sum());
            }
            for (Profiler p : kept) if (p != null) p.stop();
            for (PerfRecordControl q : perfs) if (q != null) q.close();
            System.out.println("workload CPU of every chunk (ms): ");
            for (int i = 0; i < RATES.length; i++) {
                System.out.println("  " + (RATES[i] == 0 ? "none" : RATES[i] + " Hz") + ": "
                        + Arrays.toString(results.get(i).stream().mapToLong(r -> Math.round(r[4] / 1e6)).toArray()));
            }
        }
    }

    /** One chunk of the workload: its wall time, this thread's CPU time, and the process's CPU time when it began. */
    private record Chunk(long wall, long mine, long processCpuAtStart) {
        static Chunk run(Executable exe, RunContext ctx, long runs, ThreadMXBean threads, com.sun.management.OperatingSystemMXBean os) {
            long cpu0 = os.getProcessCpuTime(), mine0 = threads.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            long acc = 0;
            for (long r = 0; r < runs; r++) acc += exe.run(ctx);
            long wall = System.nanoTime() - w0, mine = threads.getCurrentThreadCpuTime() - mine0;
            if (acc == 42) System.out.println();   // keeps the runs' results alive
            return new Chunk(wall, mine, cpu0);
        }

        /** CPU the rest of the process used since the chunk began (the sampler's threads, GC, compilers). */
        long others(com.sun.management.OperatingSystemMXBean os) { return os.getProcessCpuTime() - processCpuAtStart - mine; }
    }

    /** "median (middle half) | mean +- sd" of per-round shares, in percent. */
    private static String spread(double[] values, boolean quartiles) {
        double[] v = values.clone();
        Arrays.sort(v);
        double mean = Arrays.stream(v).average().orElse(0);
        double sd = Math.sqrt(Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / Math.max(1, v.length - 1));
        double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        String q = quartiles ? String.format(" (%+.2f%% .. %+.2f%%)", 100 * v[v.length / 4], 100 * v[v.length - 1 - v.length / 4]) : "";
        return String.format("%+.2f%%%s | %+.2f%% +- %.2f%%", 100 * med, q, 100 * mean, 100 * sd);
    }

    /** CPU time of the live thread called {@code name}, 0 when there is none. */
    private static long cpuOf(ThreadMXBean threads, String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().equals(name)) return Math.max(0, threads.getThreadCpuTime(t.getId()));
        return 0;
    }

    /** CPU time of each of {@code ts} (reader, unwinder). */
    private static long[] cpuOf(ThreadMXBean threads, List<Thread> ts) {
        long[] out = new long[ts.size()];
        for (int i = 0; i < out.length; i++) out[i] = Math.max(0, threads.getThreadCpuTime(ts.get(i).getId()));
        return out;
    }

    private static double median(List<double[]> rows, int col) {
        double[] v = rows.stream().mapToDouble(r -> r[col]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
