package dev.bpf4j.cli;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A command's parsed arguments ({@link CommandLineSpec} fills it from picocli's parse): the options given,
 * by their longest name, the value-less ones given, the positional arguments and, for a command that
 * {@link Command#takesCommand takes one}, the command after {@code --}. Only what the user gave is here:
 * each command applies the defaults its {@code --help} states.
 */
public final class Args {
    private final Map<String, String> options;
    private final Set<String> flagsGiven;
    private final List<String> positionals;
    private final List<String> command;

    Args(Map<String, String> options, Set<String> flags, List<String> positionals, List<String> command) {
        this.options = Map.copyOf(options);
        this.flagsGiven = Set.copyOf(flags);
        this.positionals = List.copyOf(positionals);
        this.command = List.copyOf(command);
    }

    public Optional<String> option(String name) { return Optional.ofNullable(options.get(name)); }

    public List<String> positionals() { return positionals; }

    /** Whether the value-less option {@code name} was given. */
    public boolean flag(String name) { return flagsGiven.contains(name); }

    /** The words after {@code --} (empty when there were none). */
    public List<String> command() { return command; }

    /** The single positional argument, or a usage error naming {@code what}. */
    public String single(String what) {
        if (positionals.isEmpty()) throw new UsageException("missing " + what);
        if (positionals.size() > 1) throw new UsageException("expected one " + what + ", got " + positionals.size() + ": " + positionals);
        return positionals.get(0);
    }
}
