package dev.bpf4j.cli.conformance;

import java.nio.file.Path;
import java.util.List;

/** The verdict on one {@code .data} file: passed, failed (with the reason) or skipped. */
public record CaseResult(Path file, Status status, String reason, List<Outcome> outcomes) {
    public enum Status { PASSED, FAILED, SKIPPED }

    public static CaseResult passed(Path file, List<Outcome> outcomes) { return new CaseResult(file, Status.PASSED, "", outcomes); }
    public static CaseResult failed(Path file, String reason, List<Outcome> outcomes) { return new CaseResult(file, Status.FAILED, reason, outcomes); }
    public static CaseResult skipped(Path file, String reason) { return new CaseResult(file, Status.SKIPPED, reason, List.of()); }

    public boolean passed() { return status == Status.PASSED; }
    public boolean failed() { return status == Status.FAILED; }

    /** The engines that gave no verdict on this file (kernel verifier refusals), with why. */
    public List<Outcome> skippedEngines() { return outcomes.stream().filter(Outcome::skipped).toList(); }
}
