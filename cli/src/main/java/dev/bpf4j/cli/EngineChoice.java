package dev.bpf4j.cli;

import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.KernelEngine;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.api.Engines;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The CLI's {@code --engine interp|jit|jvm|kernel|all} selection over the engines this build has (every
 * {@link Engine} registered in {@code META-INF/services}, interpreter first, then jit, jvm). The kernel engine is only
 * chosen where bpf() works ({@link KernelBpf#availability()}): {@code --engine kernel} fails with the
 * reason, {@code --engine all} runs the other engines and says why the kernel was skipped.
 */
public final class EngineChoice {
    private EngineChoice() {}

    public static final List<String> CHOICES = List.of("interp", "jit", "jvm", "kernel", "all");

    /** As {@link #select(String, PrintStream)}, printing nothing when the kernel is skipped. */
    public static List<Engine> select(String choice) { return select(choice, null); }

    /** The engines named by an {@code --engine} value; a missing engine is a clear error; a skipped kernel is said on {@code err}. */
    public static List<Engine> select(String choice, PrintStream err) {
        if (!CHOICES.contains(choice)) {
            throw new UsageException("unknown engine '" + choice + "' (expected one of " + String.join(", ", CHOICES) + ")");
        }
        List<Engine> all = Engines.available();
        if (choice.equals("all")) {
            List<Engine> out = new ArrayList<>();
            for (Engine e : all) {
                String refused = e.name().equals(KernelEngine.NAME) ? kernelRefused() : null;
                if (refused == null) out.add(e);
                else if (err != null) err.println("kernel: skipped (" + refused + ")");
            }
            if (out.isEmpty()) throw new CliException("no engine is available in this build");
            return out;
        }
        Engine e = all.stream().filter(x -> x.name().equals(choice)).findFirst()
                .orElseThrow(() -> new CliException("the '" + choice + "' engine is not available in this build"));
        if (choice.equals(KernelEngine.NAME)) {
            String refused = kernelRefused();
            if (refused != null) throw new EngineUnavailableException("the kernel engine cannot run here: " + refused);
        }
        return List.of(e);
    }

    /** Null when bpf() works for this process, else why not. */
    static String kernelRefused() {
        KernelBpf.Availability a = KernelBpf.availability();
        return a.available() ? null : a.reason();
    }
}
