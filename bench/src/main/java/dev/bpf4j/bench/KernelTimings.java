package dev.bpf4j.bench;

import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.KernelEngine;
import dev.bpf4j.kernel.KernelExecutable;
import dev.bpf4j.kernel.KernelRejectedException;
import dev.bpf4j.kernel.KernelTiming;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.runtime.MemoryRegion;

import java.util.ArrayList;
import java.util.List;

/**
 * The kernel column of the report: each workload loaded into the Linux kernel (bpf-kernel's
 * {@link KernelEngine}) and run with BPF_PROG_TEST_RUN {@code repeat}, the kernel timing the loop
 * around the runs itself, so the figure is the kernel JIT's cost per run without the system call.
 * Each input is followed by {@link #SLACK} zero bytes in the kernel's buffer. Prints one JSON object: {@code {"available": false, "reason": ...}} where bpf() is refused, else per
 * workload the mean and fastest of {@code measurements} averages (each over at least
 * {@code millis} ms of runs), or {@code "refused"} with the verifier's reason, plus the empty program. Exits non-zero when the kernel's r0 differs
 * from the agreed result. Usage: {@code KernelTimings [measurements] [millis]}.
 */
public final class KernelTimings {
    private KernelTimings() {}

    public static void main(String[] args) {
        int measurements = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 200;
        KernelBpf.Availability a = KernelBpf.availability();
        if (!a.available()) {
            System.out.println("{\"available\": false, \"reason\": \"" + quote(a.reason()) + "\"}");
            return;
        }
        GccLibrary gcc = GccLibrary.gccAvailable() ? GccLibrary.compile() : null;
        List<String> entries = new ArrayList<>();
        for (Workload w : Workload.values()) {
            long expected = Agreement.require(w, gcc);
            byte[] input = w.input();
            try (DataBuffer data = new DataBuffer(java.util.Arrays.copyOf(input, input.length + SLACK))) {
                entries.add(json(w.id(), measure(w.id(), w.program(), context(data, input.length), expected, measurements, millis)));
            } catch (KernelRejectedException e) {
                // e.g. parse: its bounds checks compare two map-value pointers, which the verifier does not learn from
                entries.add(String.format("\"%s\": {\"refused\": \"%s\"}", w.id(), quote(lastLine(e.verifierLog()))));
            }
        }
        entries.add(json("empty", measure("empty", CallPrograms.empty(), RunContext.builder().arg(1, 0).build(), 0, measurements, millis)));
        System.out.println("{\"available\": true, \"timings\": {" + String.join(", ", entries) + "}}");
    }

    /**
     * Bytes of zeros after each input in the kernel's copy of the buffer (r2 still says the input's
     * length). The parse workload checks its header lengths against r2 by comparing pointers into the
     * buffer, which the verifier does not learn from for map values: it proves the reads safe only when
     * the map value has room for the longest header the checks allow (off 86 over a 64-byte packet).
     */
    static final int SLACK = 64;

    /** r1 = the buffer, r2 = {@code length} (the input without the slack), the whole buffer the one region. */
    static RunContext context(DataBuffer data, long length) {
        return RunContext.builder().arg(1, data.address()).arg(2, length)
                .region(new MemoryRegion("data", data.address(), data.length(), false)).build();
    }

    /** Mean and fastest of the kernel's per-run averages. */
    record Result(double meanNs, double bestNs, int repeat) {}

    static Result measure(String what, Program program, RunContext context, long expected, int measurements, long millis) {
        try (KernelExecutable exe = new KernelEngine().load(program, LoadOptions.defaults().withEntryArgs(2))) {
            KernelTiming first = exe.time(context, 1);
            if (first.r0() != expected) {
                throw new IllegalStateException(String.format("%s in the kernel returned 0x%x, expected 0x%x", what, first.r0(), expected));
            }
            // grow repeat until one BPF_PROG_TEST_RUN lasts at least `millis` (this is also the warm-up)
            int repeat = 1;
            while (repeat < (1 << 30)) {
                KernelTiming t = exe.time(context, repeat);
                if (Math.max(1, t.averageNs()) * repeat >= millis * 1_000_000) break;
                repeat *= 4;
            }
            double sum = 0, best = Double.MAX_VALUE;
            for (int i = 0; i < measurements; i++) {
                long ns = exe.time(context, repeat).averageNs();
                sum += ns;
                best = Math.min(best, ns);
            }
            return new Result(sum / measurements, best, repeat);
        }
    }

    /** The verifier's reason: the last log line before its statistics. */
    static String lastLine(String log) {
        List<String> lines = log.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("processed ")).toList();
        return lines.isEmpty() ? "(no verifier log)" : lines.get(lines.size() - 1);
    }

    private static String quote(String s) { return s.replace("\\", "\\\\").replace("\"", "'"); }

    private static String json(String name, Result r) {
        return String.format("\"%s\": {\"mean_ns\": %.1f, \"best_ns\": %.1f, \"repeat\": %d}", name, r.meanNs(), r.bestNs(), r.repeat());
    }
}
