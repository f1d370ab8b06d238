package dev.bpf4j.cli;

import java.util.List;

/**
 * One option of a command, as {@link CommandLineSpec} declares it to picocli: its names (the longest is
 * the key {@link Args#option} reads), its value's label ({@code null} for a flag), what it does, and the
 * default the command applies when it is absent (shown in {@code --help}; {@code null}: none).
 *
 * @param file the value names a file, where {@code -} stands for standard input
 */
record Opt(List<String> names, String label, String description, String defaultValue, boolean file) {
    /** An option with a value. */
    static Opt valued(String names, String label, String description, String defaultValue) {
        return new Opt(List.of(names.split(",")), label, description, defaultValue, false);
    }

    /** An option whose value is a file ({@code -}: standard input). */
    static Opt file(String names, String label, String description) {
        return new Opt(List.of(names.split(",")), label, description + " (- for standard input)", null, true);
    }

    /** A value-less option. */
    static Opt flag(String names, String description) {
        return new Opt(List.of(names.split(",")), null, description, null, false);
    }

    /** The key {@link Args} files the option under: its longest name. */
    String key() {
        return names.stream().reduce((a, b) -> b.length() > a.length() ? b : a).orElseThrow();
    }

    static final Opt PERF_MAP = flag(PerfMapFlag.NAME, "name JIT code in /tmp/perf-PID.map for perf report");
    static final Opt JSON = flag("-j,--json", "print the result as one JSON document");

    /** {@code --engine} of the commands that run any engine. */
    static Opt engine(String defaultValue) {
        return valued("--engine", "ENGINE", "interp (the interpreter), jit (the x86-64 JIT), jvm (JVM bytecode, docs/jvm-engine.md), kernel (Linux through bpf(2):"
                + " root or CAP_BPF) or all (every available engine; the kernel is skipped, with the reason, where bpf() is"
                + " refused)", defaultValue);
    }

    /** {@code --engine} of the commands whose programs only bpf4j's engines run (probes, samples). */
    static Opt bpf4jEngine(String defaultValue) {
        return valued("--engine", "ENGINE", "interp, jit or all (both engines, compared; 'both' is a deprecated alias)", defaultValue);
    }
}
