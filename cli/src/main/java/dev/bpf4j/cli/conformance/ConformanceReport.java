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

    public String summary() {
        long skipped = count(CaseResult.Status.SKIPPED);
        return count(CaseResult.Status.PASSED) + " passed, " + count(CaseResult.Status.FAILED) + " failed"
                + (skipped > 0 ? ", " + skipped + " skipped" : "");
    }

    /** One line per failure: {@code FAIL path: reason}. */
    public static String describe(CaseResult r) { return "FAIL " + r.file() + ": " + r.reason(); }
}
