package dev.bpf4j.cli;

import dev.bpf4j.runtime.BpfException;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** {@code bpf4j}: a thin command line over the bpf4j API; picocli parses it ({@link CommandLineSpec}). */
public final class Main {
    static final List<Command> COMMANDS = List.of(
            new RunCommand(), new ConformanceCommand(), new AsmCommand(), new DisasmCommand(), new TraceCommand(),
            new ProfileCommand(), new DemoCommand(), new FuzzCommand());

    private Main() {}

    public static void main(String[] args) {
        // jffi reads native memory through sun.misc.Unsafe unless told not to, and JDK 24+ warns
        // about that; on 22+ bpf4j's own memory goes through FFM, and jffi's through its JNI
        // accessors (docs/jdk.md). Before any jffi class is loaded; an explicit -D wins.
        if (Runtime.version().feature() >= 22 && System.getProperty("jffi.unsafe.disabled") == null) {
            System.setProperty("jffi.unsafe.disabled", "true");
        }
        System.exit(run(Arrays.asList(args), System.in, System.out, System.err));
    }

    /** Runs one command line; returns the exit status (0 ok, 1 failure, 2 usage error, missing input or engine unavailable here). */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return run(args, System.in, out, err);
    }

    /** As {@link #run(List, PrintStream, PrintStream)}, with {@code in} as the standard input {@code -} reads. */
    public static int run(List<String> args, InputStream in, PrintStream out, PrintStream err) {
        if (args.size() >= 1 && args.get(0).equals("help")) {
            return args.size() == 1 ? run(List.of("--help"), in, out, err) : run(List.of(args.get(1), "--help"), in, out, err);
        }
        CommandLine cl = CommandLineSpec.build(COMMANDS);
        // Everything after the first "--" is a command to run, for the commands that take one (profile).
        List<String> words = args;
        List<String> command = List.of();
        int dashes = args.indexOf("--");
        if (dashes > 0 && takesCommand(args.get(0))) {
            words = args.subList(0, dashes);
            command = List.copyOf(args.subList(dashes + 1, args.size()));
            if (command.isEmpty()) {
                err.println("bpf4j " + args.get(0) + ": missing COMMAND after --");
                err.println("usage: " + find(args.get(0)).usage());
                return 2;
            }
        }
        ParseResult parsed;
        try {
            parsed = cl.parseArgs(words.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            CommandLine where = e.getCommandLine();
            String name = where.getCommandSpec().name();
            if (where == cl && e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                    && !u.getUnmatched().get(0).startsWith("-")) {
                err.println("bpf4j: unknown command '" + u.getUnmatched().get(0) + "' (commands: " + names() + ")");
                return 2;
            }
            err.println((where == cl ? "bpf4j" : "bpf4j " + name) + ": " + CommandLineSpec.describe(e));
            err.print(where == cl ? "" : "usage: " + find(name).usage() + "\n");
            err.println("Run 'bpf4j " + (where == cl ? "" : name + " ") + "--help' for more.");
            return 2;
        }
        if (parsed.isUsageHelpRequested()) {
            cl.usage(out);
            return 0;
        }
        if (parsed.isVersionHelpRequested()) {
            cl.printVersionHelp(out);
            return 0;
        }
        ParseResult sub = parsed.subcommand();
        if (sub == null) {
            cl.usage(out);
            return 2;
        }
        Command cmd = find(sub.commandSpec().name());
        if (sub.isUsageHelpRequested()) {
            sub.commandSpec().commandLine().usage(out);
            return 0;
        }
        if (sub.isVersionHelpRequested()) {
            sub.commandSpec().commandLine().printVersionHelp(out);
            return 0;
        }
        StdinFile stdin = new StdinFile(in);
        try {
            return cmd.run(CommandLineSpec.args(cmd, sub, command, stdin), out, err);
        } catch (EngineUnavailableException | BadInputException e) {
            err.println("bpf4j " + cmd.name() + ": " + e.getMessage());
            return 2;
        } catch (UsageException e) {
            err.println("bpf4j " + cmd.name() + ": " + e.getMessage());
            err.println("usage: " + cmd.usage());
            return 2;
        } catch (CliException | BpfException | UncheckedIOException | IllegalArgumentException e) {
            // IllegalArgumentException: the API refusing the input (a run's data_in/ctx_in, ...), as EINVAL would
            err.println("bpf4j " + cmd.name() + ": " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            // A bug rather than bad input: still a message and a status, never a stack dump.
            err.println("bpf4j " + cmd.name() + ": internal error: " + e);
            return 1;
        } finally {
            stdin.delete();
        }
    }

    private static boolean takesCommand(String name) {
        Command c = find(name);
        return c != null && c.takesCommand();
    }

    private static String names() {
        List<String> out = new ArrayList<>();
        for (Command c : COMMANDS) out.add(c.name());
        return String.join(", ", out);
    }

    static Command find(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    /** The usage of every command, as {@code bpf4j --help} prints it. */
    static String help() {
        java.io.StringWriter w = new java.io.StringWriter();
        CommandLineSpec.build(COMMANDS).usage(new PrintWriter(w));
        return w.toString();
    }
}
