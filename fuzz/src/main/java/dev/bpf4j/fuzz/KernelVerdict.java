package dev.bpf4j.fuzz;

/**
 * bpf4j's verifier verdict (the reference engine's) against Linux's on one program. Linux being
 * stricter ({@link #ONLY_LINUX_REJECTS}) is expected and counted; {@link #ONLY_BPF4J_REJECTS} is a
 * finding, listed like a run difference.
 */
public enum KernelVerdict {
    BOTH_ACCEPT("both accept"),
    BOTH_REJECT("both reject"),
    ONLY_LINUX_REJECTS("only Linux rejects"),
    ONLY_BPF4J_REJECTS("only bpf4j rejects"),
    NOT_COMPARABLE("not comparable");

    public final String label;

    KernelVerdict(String label) { this.label = label; }

    /** The verdict of {@code ref} (a bpf4j engine) against {@code kernel}, or null when no kernel ran. */
    static KernelVerdict of(EngineOutcome ref, EngineOutcome kernel) {
        if (kernel == null) return null;
        Observation.Verdict r = ref.verdict(), k = kernel.verdict();
        if (k == Observation.Verdict.SKIPPED || k == Observation.Verdict.CRASHED || r == Observation.Verdict.CRASHED) return NOT_COMPARABLE;
        boolean refRejects = r == Observation.Verdict.REJECTED, linuxRejects = k == Observation.Verdict.REJECTED;
        if (refRejects) return linuxRejects ? BOTH_REJECT : ONLY_BPF4J_REJECTS;
        return linuxRejects ? ONLY_LINUX_REJECTS : BOTH_ACCEPT;
    }
}
