package dev.bpf4j.cli;

import java.io.PrintStream;
import java.util.List;

/** One {@code bpf4j} sub-command: what it takes ({@link CommandLineSpec} parses it) and what it does. */
public interface Command {
    String name();

    /** One line for {@code bpf4j --help}. */
    String summary();

    /** The usage line(s), printed on a usage error. */
    String usage();

    /** Its options, in the order {@code --help} lists them. */
    List<Opt> options();

    /** The label of its positional arguments ({@code FILE}, {@code PATH...}), or null when it takes none. */
    String parameters();

    /** What the positional arguments are, for {@code --help}. */
    default String parametersDescription() { return parameters(); }

    /** Whether the positional arguments are files, where {@code -} stands for standard input. */
    default boolean parametersAreFiles() { return true; }

    /** Whether everything after {@code --} is a command to run ({@link Args#command()}) rather than arguments. */
    default boolean takesCommand() { return false; }

    /** Runs with the parsed arguments; returns the exit status. */
    int run(Args args, PrintStream out, PrintStream err);
}
