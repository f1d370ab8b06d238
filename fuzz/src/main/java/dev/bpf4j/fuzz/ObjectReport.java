package dev.bpf4j.fuzz;

import java.util.List;

/**
 * The differential outcome of one object: it failed to open ({@code openError} names the reason), or each
 * engine's {@link ObjectOutcome}; {@code differences} lists crashes ("crash-open", "crash-interp", ...),
 * and where an engine differs from the first: "object-verdict" (loaded on one only) or "object-run".
 */
public record ObjectReport(String origin, String openError, List<ObjectOutcome> outcomes, List<Difference> differences) {
    public ObjectReport {
        outcomes = List.copyOf(outcomes);
        differences = List.copyOf(differences);
    }

    public boolean opened() { return openError == null && differences.stream().noneMatch(d -> d.kind().equals("crash-open")); }

    public boolean loaded() { return !outcomes.isEmpty() && outcomes.stream().allMatch(ObjectOutcome::loaded); }

    /** Loaded everywhere and at least one program ran. */
    public boolean ran() { return loaded() && outcomes.get(0).programsRun() > 0; }

    public boolean agree() { return differences.isEmpty(); }

    public boolean crashed() { return differences.stream().anyMatch(d -> d.kind().startsWith("crash")); }

    /** The first difference's kind, or "" when they agree. */
    public String mismatchClass() { return differences.isEmpty() ? "" : differences.get(0).kind(); }

    public String describe() {
        StringBuilder sb = new StringBuilder(origin).append(": ");
        if (openError != null) sb.append("open failed: ").append(openError).append('\n');
        else sb.append(differences.isEmpty() ? "engines agree" : "DIFFER").append('\n');
        for (Difference d : differences) sb.append("  ").append(d.kind()).append(": ").append(d.detail()).append('\n');
        for (ObjectOutcome o : outcomes) {
            sb.append("  ").append(o.engine()).append(o.crash() == null ? "" : " CRASH " + o.crash()).append('\n');
            for (String l : o.lines()) sb.append("    ").append(l).append('\n');
        }
        return sb.toString();
    }
}
