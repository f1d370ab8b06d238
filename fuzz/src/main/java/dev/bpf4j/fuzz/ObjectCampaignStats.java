package dev.bpf4j.fuzz;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Counts of one {@link ObjectCampaign}: objects tried, how many opened, loaded on every engine and ran at
 * least one program, the program runs made, mismatches by class, crashes and hangs.
 */
public final class ObjectCampaignStats {
    private final long startNanos = System.nanoTime();
    private long objects, opened, loaded, ran, runs, mismatches, crashes, hangs;
    private final Map<String, Long> byClass = new TreeMap<>();

    synchronized void add(ObjectReport r) {
        objects++;
        if (r.opened()) opened++;
        if (r.loaded()) loaded++;
        if (r.ran()) ran++;
        if (!r.outcomes().isEmpty()) runs += r.outcomes().get(0).programsRun();
        if (!r.agree()) {
            mismatches++;
            byClass.merge(r.mismatchClass(), 1L, Long::sum);
        }
        if (r.crashed()) crashes++;
    }

    synchronized void hang() { hangs++; }

    public synchronized long objects() { return objects; }
    public synchronized long opened() { return opened; }
    public synchronized long loaded() { return loaded; }
    public synchronized long ran() { return ran; }
    public synchronized long runs() { return runs; }
    public synchronized long mismatches() { return mismatches; }
    public synchronized long crashes() { return crashes; }
    public synchronized long hangs() { return hangs; }
    public synchronized Map<String, Long> byClass() { return new TreeMap<>(byClass); }

    public double seconds() { return (System.nanoTime() - startNanos) / 1e9; }

    /** {@code 5000 objects, 210/s, opened 3100, loaded 1900, ran 1850 (7400 runs), mismatches 0, crashes 0, hangs 0}. */
    public synchronized String line() {
        double s = seconds();
        String classes = byClass.isEmpty() ? "" : byClass.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ", " (", ")"));
        return String.format("%d objects, %.0f/s, opened %d, loaded %d, ran %d (%d runs), mismatches %d%s, crashes %d, hangs %d",
                objects, s > 0 ? objects / s : 0, opened, loaded, ran, runs, mismatches, classes, crashes, hangs);
    }
}
