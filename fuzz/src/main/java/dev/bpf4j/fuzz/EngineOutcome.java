package dev.bpf4j.fuzz;

/**
 * One engine's two runs of a program: the second on a fresh memory block at another address and from
 * a deeper Java stack, so that a result depending on where things are placed natively shows as the
 * two runs disagreeing ({@link #stable()} false). {@code loadNanos}: how long the load took (gate and
 * engine), which a campaign reports when it is unusually long.
 */
public record EngineOutcome(String engine, Observation first, Observation second, long loadNanos) {
    public EngineOutcome(String engine, Observation first, Observation second) { this(engine, first, second, 0); }

    public boolean stable() { return second == null || first.observable().equals(second.observable()); }

    public Observation.Verdict verdict() { return first.verdict(); }
}
