package dev.bpf4j.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * Compares the engines' outcomes of one program on every observable: how the run ended, r0, the
 * error's kind, pc and address, the memory block afterwards; and each engine with itself across two
 * runs (a result that moves with native addresses is a difference too). The first engine is the
 * reference (the interpreter when present).
 */
public final class Oracle {
    private Oracle() {}

    public static List<Difference> compare(List<EngineOutcome> outcomes) {
        List<Difference> out = new ArrayList<>();
        for (EngineOutcome o : outcomes) {
            if (o.verdict() == Observation.Verdict.CRASHED) out.add(new Difference("crash-" + o.engine(), o.engine() + ": " + o.first().message()));
            else if (!o.stable()) {
                out.add(new Difference("unstable-" + o.engine(), o.engine() + " gave " + o.first().observable() + ", then " + o.second().observable()));
            }
        }
        EngineOutcome ref = outcomes.get(0);
        for (EngineOutcome o : outcomes.subList(1, outcomes.size())) {
            Difference d = compare(ref, o);
            if (d != null) out.add(d);
        }
        return out;
    }

    /** The first way {@code o} differs from {@code ref}, or null. */
    static Difference compare(EngineOutcome ref, EngineOutcome o) {
        Observation a = ref.first(), b = o.first();
        String sides = ref.engine() + " " + a.ending() + ", " + o.engine() + " " + b.ending();
        if (a.verdict() == Observation.Verdict.CRASHED || b.verdict() == Observation.Verdict.CRASHED) return null; // counted above
        if (a.verdict() != b.verdict()) return new Difference("verdict", sides);
        if (a.verdict() == Observation.Verdict.REJECTED) return null;
        if (a.verdict() == Observation.Verdict.RETURNED && a.r0() != b.r0()) return new Difference("r0", sides);
        if (a.verdict() == Observation.Verdict.FAILED && !a.ending().equals(b.ending())) return new Difference("error", sides);
        if (!a.sameMemory(b)) {
            return new Difference("memory", sides + "; memory block afterwards: " + ref.engine() + " " + hex(a) + ", " + o.engine() + " " + hex(b));
        }
        return null;
    }

    private static String hex(Observation o) { return java.util.HexFormat.of().formatHex(o.memAfter()); }
}
