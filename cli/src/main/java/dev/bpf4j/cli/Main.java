package dev.bpf4j.cli;

import dev.bpf4j.runtime.BpfException;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/** {@code bpf4j}: a thin command line over the bpf4j API. */
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
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /** Runs one command line; returns the exit status (0 ok, 1 failure, 2 usage error, missing input or engine unavailable here). */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || List.of("--help", "-h", "help").contains(args.get(0))) {
            if (args.size() > 1 && args.get(0).equals("help")) return helpFor(args.get(1), out, err);
            out.print(help());
            return args.isEmpty() ? 2 : 0;
        }
        Command cmd = find(args.get(0));
        if (cmd == null) {
            err.println("bpf4j: unknown command '" + args.get(0) + "'");
            err.print(help());
            return 2;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.println("usage: " + cmd.usage());
            return 0;
        }
        try {
            return cmd.run(rest, out, err);
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
        }
    }

    private static int helpFor(String name, PrintStream out, PrintStream err) {
        Command cmd = find(name);
        if (cmd == null) {
            err.println("bpf4j: unknown command '" + name + "'");
            return 2;
        }
        out.println("usage: " + cmd.usage());
        return 0;
    }

    static Command find(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    static String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("bpf4j - an eBPF runtime for the JVM\n\nusage: bpf4j COMMAND [ARGS...]\n\ncommands:\n");
        for (Command c : COMMANDS) sb.append(String.format("  %-12s %s%n", c.name(), c.summary()));
        sb.append("\nusage of each command:\n");
        for (Command c : COMMANDS) sb.append("  ").append(c.usage()).append('\n');
        sb.append("\nEngines: interp (the interpreter), jit (x86-64 JIT), jvm (JVM bytecode, docs/jvm-engine.md), kernel (the Linux kernel through bpf(2): root or CAP_BPF),\n"
                + "all (every available engine; the kernel is skipped, with the reason, where bpf() is refused).\n");
        return sb.toString();
    }
}
