package dev.bpf4j.bench;

import dev.bpf4j.engine.Engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The BPF engines on the class path, found through {@link ServiceLoader} by their {@link Engine#name()}
 * ({@code interp}, {@code jit}), the names the benchmark parameters use. {@link #names()} lists the
 * in-process engines JMH times; the kernel engine is timed by the kernel itself ({@link KernelTimings}).
 */
public final class EngineParams {
    private EngineParams() {}

    /** Pseudo-engine name of the gcc baseline in the benchmark parameters. */
    public static final String GCC = "gcc";

    /**
     * The gcc baseline called through the JNI entry that JIT runs use ({@code JniEntry}) instead of
     * jffi's: the same call the JIT pays, so that JIT/gcc-jni compares the code alone.
     */
    public static final String GCC_JNI = "gcc-jni";

    /** Whether {@code engine} names one of the gcc baselines. */
    public static boolean isGcc(String engine) { return GCC.equals(engine) || GCC_JNI.equals(engine); }

    public static Optional<Engine> find(String name) {
        for (Engine e : ServiceLoader.load(Engine.class)) {
            if (e.name().equals(name)) return Optional.of(e);
        }
        return Optional.empty();
    }

    /** The engine named {@code name}, or a clear error listing what is available. */
    public static Engine require(String name) {
        return find(name).orElseThrow(() -> new IllegalStateException(
                "no BPF engine named '" + name + "' on the class path (available: " + names() + ")"));
    }

    /** Name of the kernel engine, which JMH does not time (a run through it is a system call and map copies). */
    public static final String KERNEL = "kernel";

    /** Names of every registered in-process engine (all but {@link #KERNEL}), in ServiceLoader order. */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        for (Engine e : ServiceLoader.load(Engine.class)) if (!e.name().equals(KERNEL)) names.add(e.name());
        return names;
    }
}
