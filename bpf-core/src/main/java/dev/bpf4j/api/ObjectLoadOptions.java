package dev.bpf4j.api;

import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.Limits;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * How {@link OpenObject#load} makes a live object.
 *
 * @param engine        the engine programs run on by default
 * @param helperExtras  adds or replaces helpers after bpf4j's own ({@code BpfHelpers}) are registered
 * @param traceSink     where {@code bpf_trace_printk} / {@code bpf_printk} lines go
 * @param budget        taken back-edges plus calls allowed per run ({@link Limits#DEFAULT_BUDGET})
 */
public record ObjectLoadOptions(Engine engine, Consumer<HelperRegistry.Builder> helperExtras, Consumer<String> traceSink,
                                long budget) {
    public ObjectLoadOptions {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(helperExtras, "helperExtras");
        Objects.requireNonNull(traceSink, "traceSink");
        if (budget < 0) throw new IllegalArgumentException("negative budget");
    }

    /** The named engine, bpf4j's helpers only, trace lines to standard error. */
    public static ObjectLoadOptions engine(String name) { return engine(Engines.byName(name)); }

    public static ObjectLoadOptions engine(Engine engine) {
        return new ObjectLoadOptions(engine, b -> { }, line -> System.err.print(line.endsWith("\n") ? line : line + "\n"),
                Limits.DEFAULT_BUDGET);
    }

    /** The interpreter. */
    public static ObjectLoadOptions defaults() { return engine("interp"); }

    public ObjectLoadOptions withHelperExtras(Consumer<HelperRegistry.Builder> v) { return new ObjectLoadOptions(engine, v, traceSink, budget); }
    public ObjectLoadOptions withTraceSink(Consumer<String> v) { return new ObjectLoadOptions(engine, helperExtras, v, budget); }
    public ObjectLoadOptions withBudget(long v) { return new ObjectLoadOptions(engine, helperExtras, traceSink, v); }
}
