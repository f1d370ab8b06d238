package dev.bpf4j.cli.conformance;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Collects case results and prints failures and the summary line {@code N passed, M failed[, K skipped]}. */
public final class ConformanceReport {
    private final List<CaseResult> results = new ArrayList<>();

    public void add(CaseResult r) { results.add(r); }

    public List<CaseResult> results() { return List.copyOf(results); }

    public List<CaseResult> failures() { return results.stream().filter(CaseResult::failed).toList(); }

    public long count(CaseResult.Status s) { return results.stream().filter(r -> r.status() == s).count(); }

    public boolean anyFailed() { return count(CaseResult.Status.FAILED) > 0; }

    /**
     * {@code N passed, M failed[, K skipped]}, then for each engine that gave no verdict on some files
     * {@code ; kernel skipped J (refused by the kernel verifier or not comparable)}.
     */
    public String summary() {
        long skipped = count(CaseResult.Status.SKIPPED);
        StringBuilder b = new StringBuilder().append(count(CaseResult.Status.PASSED)).append(" passed, ")
                .append(count(CaseResult.Status.FAILED)).append(" failed").append(skipped > 0 ? ", " + skipped + " skipped" : "");
        java.util.Map<String, Long> perEngine = new java.util.TreeMap<>();
        for (CaseResult r : results) for (Outcome o : r.skippedEngines()) perEngine.merge(o.engine(), 1L, Long::sum);
        perEngine.forEach((engine, n) -> b.append("; ").append(engine).append(" skipped ").append(n)
                .append(" (refused by the kernel verifier or not comparable)"));
        return b.toString();
    }

    /** One line per engine without a verdict on the file: {@code SKIP [engine] path: reason}. */
    public static List<String> describeSkips(CaseResult r) {
        return r.skippedEngines().stream().map(o -> "SKIP [" + o.engine() + "] " + r.file() + ": " + o.message()).toList();
    }

    /** One line per failure: {@code FAIL path: reason}. */
    public static String describe(CaseResult r) { return "FAIL " + r.file() + ": " + r.reason(); }
}
