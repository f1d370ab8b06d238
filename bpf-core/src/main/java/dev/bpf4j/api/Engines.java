package dev.bpf4j.api;

import dev.bpf4j.runtime.BpfNotFoundException;
import dev.bpf4j.engine.Engine;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** The engines on the class path ({@code META-INF/services/dev.bpf4j.engine.Engine}), by name. */
public final class Engines {
    private Engines() {}

    /** Every engine found, interpreter first. */
    public static List<Engine> available() {
        List<Engine> out = new ArrayList<>();
        for (ServiceLoader.Provider<Engine> p : ServiceLoader.load(Engine.class).stream().toList()) {
            try {
                out.add(p.get());
            } catch (Throwable t) {
                // an engine that cannot start here (no executable memory, ...) is simply not available
            }
        }
        out.sort((a, b) -> Integer.compare(rank(a.name()), rank(b.name())));
        return out;
    }

    private static int rank(String name) {
        return switch (name) { case "interp" -> 0; case "jit" -> 1; case "jvm" -> 2; case "kernel" -> 3; default -> 4; };
    }

    /**
     * The engine called {@code name} ("interp", "jit", "kernel").
     *
     * @throws BpfNotFoundException when no such engine is on the class path; the message names the
     *                              artifact that provides it
     */
    public static Engine byName(String name) {
        List<Engine> all = available();
        List<String> names = all.stream().map(Engine::name).toList();
        return all.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow(() -> new BpfNotFoundException(
                "engine", name, names, "no engine '" + name + "' (available: " + names + ")" + artifactHint(name)));
    }

    /** Engines are separate jars: say which one to add (the coordinates README gives). */
    static String artifactHint(String name) {
        String artifact = switch (name) {
            case "interp" -> "bpf4j-interp";
            case "jit" -> "bpf4j-jit-x86";
            case "kernel" -> "bpf4j-kernel";
            default -> null;
        };
        return artifact == null ? "; engines are interp, jit and kernel"
                : "; add the dependency dev.bpf4j:" + artifact + " to the class path";
    }
}
