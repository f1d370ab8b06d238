package dev.bpf4j.cli;

import java.io.PrintStream;
import java.util.List;

/** One {@code bpf4j} sub-command. */
public interface Command {
    String name();

    /** One line for {@code bpf4j --help}. */
    String summary();

    /** The usage line(s), printed on a usage error. */
    String usage();

    /** Runs with the arguments after the command name; returns the exit status. */
    int run(List<String> args, PrintStream out, PrintStream err);
}
