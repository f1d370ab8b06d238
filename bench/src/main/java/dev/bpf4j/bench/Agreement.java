package dev.bpf4j.bench;

import dev.bpf4j.engine.Engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs a workload once on every available engine, on gcc (when given) and on the
 * {@link StepCounter}, and demands one result: a benchmark that measured a wrong answer would be
 * worthless, so the benchmarks call this at setup and refuse to start on a mismatch.
 */
public final class Agreement {
    private Agreement() {}

    /** Result per runner name ({@code interp}, {@code jit}, {@code gcc}, {@code steps}). */
    public static Map<String, Long> results(Workload workload, GccLibrary gccOrNull) {
        Map<String, Long> results = new LinkedHashMap<>();
        try (DataBuffer data = new DataBuffer(workload.input())) {
            for (String name : EngineParams.names()) {
                Engine engine = EngineParams.require(name);
                try (Target t = Target.bpf(engine, workload, data)) {
                    results.put(name, t.run());
                }
            }
            if (gccOrNull != null) {
                try (Target t = Target.gcc(gccOrNull, workload, data, false)) {
                    results.put(EngineParams.GCC, t.run());
                }
            }
            results.put("steps", new StepCounter(workload.program()).run(data.address(), data.length()).r0());
        }
        return results;
    }

    /** Throws, listing every result, unless all runners returned the same value. */
    public static long require(Workload workload, GccLibrary gccOrNull) {
        return requireSame(workload.id(), results(workload, gccOrNull));
    }

    /** The one value of {@code results}, or an exception naming {@code what} and every result. */
    public static long requireSame(String what, Map<String, Long> results) {
        if (results.isEmpty()) throw new IllegalArgumentException(what + ": no results");
        long first = results.values().iterator().next();
        if (results.values().stream().anyMatch(v -> v != first)) {
            StringBuilder sb = new StringBuilder(what + ": engines disagree:");
            results.forEach((k, v) -> sb.append(String.format(" %s=0x%016x", k, v)));
            throw new IllegalStateException(sb.toString());
        }
        return first;
    }
}
