package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.ErrorKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Compares the engines' outcomes of one program on every observable: how the run ended, r0, the
 * error's kind, pc and address, the memory block (an object's packet) afterwards, ctx_out and every
 * map; and each engine with itself across two runs (a result that moves with native addresses is a
 * difference too). The first engine is the reference (the interpreter when present).
 *
 * <p>The kernel ({@code kernel}) is compared with the reference differently: its verifier verdict
 * first ({@link KernelVerdict}; only "bpf4j rejects what Linux runs" is a difference), then, where
 * both ran the program, the result: Linux has no run-time errors, so a bpf4j run that fails where
 * Linux ran to the end differs too, except for bpf4j's run budget, which Linux does not have.
 */
public final class Oracle {
    private Oracle() {}

    public static final String KERNEL = "kernel";

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
            Difference d = o.engine().equals(KERNEL) ? compareWithKernel(ref, o) : compare(ref, o);
            if (d != null) out.add(d);
        }
        return out;
    }

    /** The kernel's outcome among {@code outcomes}, or null. */
    static EngineOutcome kernel(List<EngineOutcome> outcomes) {
        return outcomes.stream().skip(1).filter(o -> o.engine().equals(KERNEL)).findFirst().orElse(null);
    }

    /** The first way {@code o} differs from {@code ref}, or null. */
    static Difference compare(EngineOutcome ref, EngineOutcome o) {
        Observation a = ref.first(), b = o.first();
        String sides = ref.engine() + " " + a.ending() + ", " + o.engine() + " " + b.ending();
        if (a.verdict() == Observation.Verdict.CRASHED || b.verdict() == Observation.Verdict.CRASHED) return null; // counted above
        if (a.verdict() != b.verdict()) return new Difference("verdict", sides);
        if (a.verdict() == Observation.Verdict.REJECTED || a.verdict() == Observation.Verdict.SKIPPED) return null;
        if (a.verdict() == Observation.Verdict.RETURNED && a.r0() != b.r0()) return new Difference("r0", sides);
        if (a.verdict() == Observation.Verdict.FAILED && !a.ending().equals(b.ending())) return new Difference("error", sides);
        return sameEffects(ref, o, "");
    }

    /** The kernel against the reference: the verdicts, then (both ran) r0 and every effect. */
    static Difference compareWithKernel(EngineOutcome ref, EngineOutcome k) {
        KernelVerdict v = KernelVerdict.of(ref, k);
        Observation a = ref.first(), b = k.first();
        String sides = ref.engine() + " " + a.ending() + ", kernel " + b.ending();
        if (v == KernelVerdict.ONLY_BPF4J_REJECTS) return new Difference("kernel-verdict", "only bpf4j rejects: " + a.message());
        if (v != KernelVerdict.BOTH_ACCEPT) return null;
        if (a.verdict() == Observation.Verdict.FAILED) {
            return a.kind() == ErrorKind.BUDGET_EXCEEDED ? null : new Difference("kernel-run", sides + " (Linux ran it to the end)");
        }
        if (a.r0() != b.r0()) return new Difference("kernel-r0", sides);
        Difference d = sameEffects(ref, k, "kernel-");
        return d;
    }

    private static Difference sameEffects(EngineOutcome ref, EngineOutcome o, String prefix) {
        Observation a = ref.first(), b = o.first();
        String sides = ref.engine() + " " + a.ending() + ", " + o.engine() + " " + b.ending();
        if (!a.sameMemory(b)) {
            return new Difference(prefix + "memory", sides + "; memory afterwards: " + ref.engine() + " " + hex(a) + ", " + o.engine() + " " + hex(b));
        }
        for (int i = 0; i < Math.max(a.state().size(), b.state().size()); i++) {
            String x = i < a.state().size() ? a.state().get(i) : "(none)", y = i < b.state().size() ? b.state().get(i) : "(none)";
            if (!x.equals(y)) return new Difference(prefix + (x.startsWith("ctx_out") ? "ctx" : "maps"), sides + "; " + ref.engine() + " " + x + ", " + o.engine() + " " + y);
        }
        return null;
    }

    private static String hex(Observation o) { return java.util.HexFormat.of().formatHex(o.memAfter()); }
}
