package dev.bpf4j.fuzz;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Counts of one campaign, updated by its workers: programs, rejected loads, mismatches by class, crashes,
 * hangs, loads slower than {@link Campaign#SLOW_LOAD} (not a failure: a finding about the gate or an
 * engine), programs and accepted programs per {@link Coverage} class, and with the kernel among the
 * engines the {@link KernelVerdict} counts, why Linux refused what bpf4j accepts, and why it was skipped.
 */
public final class CampaignStats {
    private final long startNanos = System.nanoTime();
    private long programs, rejected, mismatches, crashes, hangs, slowLoads;
    private final Map<String, Long> byClass = new TreeMap<>();
    private final Map<String, long[]> coverage = new TreeMap<>();
    private final Map<KernelVerdict, Long> verdicts = new EnumMap<>(KernelVerdict.class);
    private final Map<String, Long> linuxOnlyReasons = new TreeMap<>();
    /** Of {@link #linuxOnlyReasons}, the tc objects' share (the rest run over a memory block as syscall programs). */
    private final Map<String, Long> linuxOnlyObjectReasons = new TreeMap<>();
    private final Map<String, Long> skipReasons = new TreeMap<>();

    synchronized void add(DifferentialReport r) {
        programs++;
        boolean accepted = !r.rejected();
        if (!accepted) rejected++;
        if (!r.agree()) {
            mismatches++;
            byClass.merge(r.mismatchClass(), 1L, Long::sum);
        }
        if (r.crashed()) crashes++;
        for (String c : Coverage.classes(r.fuzzCase())) {
            long[] n = coverage.computeIfAbsent(c, k -> new long[2]);
            n[0]++;
            if (accepted) n[1]++;
        }
        KernelVerdict v = r.kernelVerdict();
        if (v != null) {
            verdicts.merge(v, 1L, Long::sum);
            if (v == KernelVerdict.NOT_COMPARABLE && r.kernelSkipReason() != null) skipReasons.merge(shorten(r.kernelSkipReason()), 1L, Long::sum);
            if (v == KernelVerdict.ONLY_LINUX_REJECTS) {
                String reason = shorten(Oracle.kernel(r.outcomes()).first().message());
                linuxOnlyReasons.merge(reason, 1L, Long::sum);
                if (r.fuzzCase().isObject()) linuxOnlyObjectReasons.merge(reason, 1L, Long::sum);
            }
        }
    }

    /** A reason without its numbers (registers, offsets, sizes), so that the same reason is counted once. */
    static String shorten(String reason) {
        String s = reason == null ? "" : reason.lines().findFirst().orElse("");
        s = s.replaceAll("\\bR\\d+\\b", "RN");
        s = s.replaceAll("-?\\b(0x)?[0-9a-f]*[0-9][0-9a-f]*\\b", "N");
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }

    synchronized void hang() { hangs++; }

    synchronized void slowLoad() { slowLoads++; }

    public synchronized long programs() { return programs; }
    public synchronized long rejected() { return rejected; }
    public synchronized long accepted() { return programs - rejected; }
    public synchronized long mismatches() { return mismatches; }
    public synchronized long crashes() { return crashes; }
    public synchronized long hangs() { return hangs; }
    public synchronized long slowLoads() { return slowLoads; }
    public synchronized Map<String, Long> byClass() { return new TreeMap<>(byClass); }

    /** Per coverage class: {programs, accepted programs}. */
    public synchronized Map<String, long[]> coverage() {
        Map<String, long[]> out = new TreeMap<>();
        coverage.forEach((k, v) -> out.put(k, v.clone()));
        return out;
    }

    public synchronized Map<KernelVerdict, Long> kernelVerdicts() { return new EnumMap<>(verdicts); }

    public double seconds() { return (System.nanoTime() - startNanos) / 1e9; }

    public synchronized double acceptedPercent() { return programs == 0 ? 0 : 100.0 * (programs - rejected) / programs; }

    /** {@code 12000 programs, 1450/s, accepted 87.1%, mismatches 3 (r0 2, unstable-jit 1), crashes 0, hangs 0}. */
    public synchronized String line() {
        double s = seconds();
        String classes = byClass.isEmpty() ? "" : byClass.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ", " (", ")"));
        return String.format("%d programs, %.0f/s, accepted %.1f%%, mismatches %d%s, crashes %d, hangs %d%s",
                programs, s > 0 ? programs / s : 0, acceptedPercent(), mismatches, classes, crashes, hangs,
                slowLoads == 0 ? "" : ", slow loads " + slowLoads);
    }

    /** The coverage table and, with the kernel, the verdict table, skip reasons and Linux's extra refusals. */
    public synchronized String summary() {
        StringBuilder sb = new StringBuilder("coverage (class: programs / accepted):\n");
        int col = 0;
        for (var e : coverage.entrySet()) {
            sb.append(String.format("  %-20s %8d / %-8d", e.getKey(), e.getValue()[0], e.getValue()[1]));
            if (++col % 3 == 0) sb.append('\n');
        }
        if (col % 3 != 0) sb.append('\n');
        if (!verdicts.isEmpty()) {
            sb.append("kernel verdicts: ").append(verdicts.entrySet().stream().map(e -> e.getKey().label + " " + e.getValue())
                    .collect(Collectors.joining(", "))).append('\n');
            sb.append("only Linux rejects (count, of them tc objects, Linux's first error):\n");
            linuxOnlyReasons.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(40)
                    .forEach(e -> sb.append(String.format("  %7d %7d  %s%n", e.getValue(), linuxOnlyObjectReasons.getOrDefault(e.getKey(), 0L), e.getKey())));
            top(sb, "kernel skipped (not comparable)", skipReasons, 12);
        }
        return sb.toString();
    }

    private static void top(StringBuilder sb, String title, Map<String, Long> counts, int limit) {
        if (counts.isEmpty()) return;
        sb.append(title).append(":\n");
        counts.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(limit)
                .forEach(e -> sb.append(String.format("  %7d  %s%n", e.getValue(), e.getKey())));
    }
}
