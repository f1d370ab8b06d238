package dev.bpf4j.cli;

import dev.bpf4j.runtime.Engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The engines this build has (every {@link Engine} registered in {@code META-INF/services}) and
 * the CLI's {@code --engine interp|jit|all} selection.
 */
public final class Engines {
    private Engines() {}

    public static final List<String> CHOICES = List.of("interp", "jit", "all");

    /** Every engine on the class path, the interpreter (the reference) first, then by name. */
    public static List<Engine> available() {
        List<Engine> out = new ArrayList<>();
        for (Engine e : ServiceLoader.load(Engine.class)) {
            if (out.stream().noneMatch(x -> x.name().equals(e.name()))) out.add(e);
        }
        out.sort(Comparator.comparing((Engine e) -> !e.name().equals("interp")).thenComparing(Engine::name));
        return out;
    }

    /** The engines named by an {@code --engine} value; a missing engine is a clear error. */
    public static List<Engine> select(String choice) {
        if (!CHOICES.contains(choice)) {
            throw new UsageException("unknown engine '" + choice + "' (expected one of " + String.join(", ", CHOICES) + ")");
        }
        List<Engine> all = available();
        if (choice.equals("all")) {
            if (all.isEmpty()) throw new CliException("no engine is available in this build");
            return all;
        }
        return all.stream().filter(e -> e.name().equals(choice)).findFirst().map(List::of)
                .orElseThrow(() -> new CliException(choice.equals("jit")
                        ? "the JIT engine is not available in this build yet (bpf-jit-x86 provides no engine); use --engine interp"
                        : "the '" + choice + "' engine is not available in this build"));
    }
}
