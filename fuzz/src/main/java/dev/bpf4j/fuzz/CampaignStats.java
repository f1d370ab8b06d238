package dev.bpf4j.fuzz;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Counts of one campaign, updated by its workers: programs, rejected loads, mismatches by class, crashes,
 * hangs, and loads slower than {@link Campaign#SLOW_LOAD} (not a failure: a finding about the gate or an engine).
 */
public final class CampaignStats {
    private final long startNanos = System.nanoTime();
    private long programs, rejected, mismatches, crashes, hangs, slowLoads;
    private final Map<String, Long> byClass = new TreeMap<>();

    synchronized void add(DifferentialReport r) {
        programs++;
        if (r.rejected()) rejected++;
        if (!r.agree()) {
            mismatches++;
            byClass.merge(r.mismatchClass(), 1L, Long::sum);
        }
        if (r.crashed()) crashes++;
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
}
