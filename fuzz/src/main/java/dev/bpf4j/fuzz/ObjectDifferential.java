package dev.bpf4j.fuzz;

import dev.bpf4j.api.Engines;
import dev.bpf4j.maps.CpuPin;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Opens an object from bytes and, when it opens, loads and runs it on each engine ({@link ObjectOutcome}),
 * comparing everything they show; the object counterpart of {@link DifferentialHarness}:
 *
 * <pre>{@code
 * ObjectReport r = ObjectDifferential.interpAndJit().run(Files.readAllBytes(path), "my.o");
 * if (!r.agree()) throw new AssertionError(r.describe());
 * }</pre>
 *
 * An object that does not open must fail with a {@link BpfException} whose message names the reason and is
 * not marked {@link LoadPhase#INTERNAL_ERROR}; anything else is a "crash-open" difference.
 */
public final class ObjectDifferential {
    private final List<Engine> engines;

    public ObjectDifferential(List<Engine> engines) {
        if (engines.isEmpty()) throw new IllegalArgumentException("no engine to compare");
        this.engines = List.copyOf(engines);
    }

    public static ObjectDifferential interpAndJit() { return new ObjectDifferential(List.of(Engines.byName("interp"), Engines.byName("jit"))); }

    /** Every in-process engine: the interpreter (reference), the JIT and the JVM-bytecode engine. */
    public static ObjectDifferential inProcess() {
        return new ObjectDifferential(List.of(Engines.byName("interp"), Engines.byName("jit"), Engines.byName("jvm")));
    }

    public List<Engine> engines() { return engines; }

    /** Every engine's runs on one CPU ({@link CpuPin}): a CPU number or per-CPU slot a program uses is then the same for all. */
    public ObjectReport run(byte[] elf, String origin) { return CpuPin.onThisCpu(() -> runPinned(elf, origin)); }

    private ObjectReport runPinned(byte[] elf, String origin) {
        BpfObjectSpec spec;
        try {
            spec = BpfObjectSpec.parse(elf, "fuzz.o");
        } catch (BpfException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains(LoadPhase.INTERNAL_ERROR) || m.isBlank()) {
                return new ObjectReport(origin, null, List.of(), List.of(new Difference("crash-open", e.toString())));
            }
            return new ObjectReport(origin, m, List.of(), List.of());
        } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
            return new ObjectReport(origin, null, List.of(), List.of(new Difference("crash-open", e.toString())));
        }
        List<ObjectOutcome> outcomes = new ArrayList<>();
        List<Difference> differences = new ArrayList<>();
        for (Engine e : engines) {
            ObjectOutcome o = ObjectOutcome.of(spec, e);
            outcomes.add(o);
            if (o.crash() != null) differences.add(new Difference("crash-" + e.name(), o.crash()));
        }
        ObjectOutcome ref = outcomes.get(0);
        for (ObjectOutcome o : outcomes.subList(1, outcomes.size())) {
            if (ref.crash() != null || o.crash() != null) continue;
            if (ref.loaded() != o.loaded()) {
                differences.add(new Difference("object-verdict", ref.engine() + " " + first(ref) + ", " + o.engine() + " " + first(o)));
            } else if (!ref.lines().equals(o.lines())) {
                differences.add(new Difference("object-run", firstDifference(ref, o)));
            }
        }
        return new ObjectReport(origin, null, outcomes, differences);
    }

    private static String first(ObjectOutcome o) { return o.lines().isEmpty() ? "loaded" : o.lines().get(0); }

    private static String firstDifference(ObjectOutcome a, ObjectOutcome b) {
        int n = Math.min(a.lines().size(), b.lines().size());
        for (int i = 0; i < n; i++) {
            if (!a.lines().get(i).equals(b.lines().get(i))) {
                return a.engine() + " " + a.lines().get(i) + " | " + b.engine() + " " + b.lines().get(i);
            }
        }
        return a.engine() + " " + a.lines().size() + " lines, " + b.engine() + " " + b.lines().size();
    }
}
