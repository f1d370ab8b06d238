package dev.bpf4j.fuzz;

/**
 * One engine's two runs of a program: the second on a fresh memory block at another address and from
 * a deeper Java stack, so that a result depending on where things are placed natively shows as the
 * two runs disagreeing ({@link #stable()} false).
 */
public record EngineOutcome(String engine, Observation first, Observation second) {
    public boolean stable() { return second == null || first.observable().equals(second.observable()); }

    public Observation.Verdict verdict() { return first.verdict(); }
}
