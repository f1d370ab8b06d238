package dev.bpf4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line as picocli sees it, built from each {@link Command}'s {@link Opt}s: parsing, per-option
 * help with the defaults, {@code --version}. A parse becomes an {@link Args} of what the user gave; a
 * command's meaning stays in the command.
 */
final class CommandLineSpec {
    private CommandLineSpec() {}

    static final String EXIT_STATUS = "Exit status: 0 success, 1 failure (a run that failed, engines that disagree),"
            + " 2 bad command line or input that is not there.";
    static final String ENVIRONMENT = "JVM options for ./bpf4j go in BPF4J_OPTS (BPF4J_OPTS='-Xmx2g -Dbpf4j.jitdump=true'),"
            + " or first on its command line (./bpf4j -Dbpf4j.objdump=none disasm ...).";

    /** The root command and one sub-command per {@link Command}. */
    static CommandLine build(List<Command> commands) {
        CommandSpec root = CommandSpec.create().name("bpf4j").version(Version.lines()).mixinStandardHelpOptions(true);
        List<String> footer = new ArrayList<>(List.of("", "Usage of each command ('bpf4j COMMAND --help' describes its options):"));
        for (Command c : commands) c.usage().lines().forEach(l -> footer.add("  " + l.strip()));
        footer.addAll(List.of("", EXIT_STATUS, ENVIRONMENT));
        root.usageMessage().description("an eBPF runtime for the JVM: interpreter, x86-64 JIT and the Linux kernel as engines")
                .footer(footer.toArray(String[]::new));
        for (Command c : commands) root.addSubcommand(c.name(), sub(c));
        CommandLine cl = new CommandLine(root);
        cl.setOverwrittenOptionsAllowed(false);
        cl.setUnmatchedArgumentsAllowed(false);
        cl.setUsageHelpAutoWidth(false);
        cl.setUsageHelpWidth(110);
        return cl;
    }

    private static CommandSpec sub(Command c) {
        CommandSpec s = CommandSpec.create().name(c.name()).version(Version.lines()).mixinStandardHelpOptions(true);
        // picocli heads the synopsis with "Usage: "; the further lines of a command's usage align under it
        List<String> synopsis = new ArrayList<>();
        c.usage().lines().map(String::strip).forEach(l -> synopsis.add(synopsis.isEmpty() ? l + "%n" : "       " + l + "%n"));
        s.usageMessage().description(c.summary()).customSynopsis(synopsis.toArray(String[]::new)).footer("", EXIT_STATUS);
        for (Opt o : c.options()) {
            String desc = o.description() + (o.defaultValue() == null ? "" : " (default: " + o.defaultValue() + ")");
            OptionSpec.Builder b = OptionSpec.builder(o.names().toArray(String[]::new)).description(desc);
            if (o.label() == null) b.arity("0").type(boolean.class);
            else b.arity("1").type(String.class).paramLabel(o.label());
            s.addOption(b.build());
        }
        if (c.parameters() != null) {
            s.addPositional(PositionalParamSpec.builder().paramLabel(c.parameters()).index("0..*").arity("0..*").type(String[].class)
                    .description(c.parametersDescription()).build());
        }
        return s;
    }

    /**
     * The {@link Args} of a sub-command's parse: each matched option under its longest name, the flags, the
     * positionals; {@code stdin} replaces {@code -} where a file is expected.
     */
    static Args args(Command c, ParseResult sub, List<String> command, StdinFile stdin) {
        Map<String, String> options = new HashMap<>();
        Set<String> flags = new HashSet<>();
        for (Opt o : c.options()) {
            OptionSpec spec = sub.matchedOption(o.key());
            if (spec == null) continue;
            if (o.label() == null) {
                flags.add(o.key());
            } else {
                List<String> v = sub.matchedOption(o.key()).stringValues();
                String value = v.get(v.size() - 1);
                options.put(o.key(), o.file() ? stdin.resolve(value) : value);
            }
        }
        List<String> positionals = new ArrayList<>();
        if (c.parameters() != null && sub.hasMatchedPositional(0)) {
            for (String p : sub.matchedPositional(0).stringValues()) positionals.add(c.parametersAreFiles() ? stdin.resolve(p) : p);
        }
        return new Args(options, flags, positionals, command);
    }

    /** picocli's complaint in the words bpf4j's messages use. */
    static String describe(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            return first.startsWith("-") && first.length() > 1 ? "unknown option '" + first + "'" : "unexpected argument '" + first + "'";
        }
        if (e instanceof CommandLine.MissingParameterException m && m.getMissing() != null && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            return "option '" + o.longestName() + "' needs a value (" + o.paramLabel() + ")";
        }
        if (e instanceof CommandLine.OverwrittenOptionException o && o.getOverwritten() instanceof OptionSpec spec) {
            return "option '" + spec.longestName() + "' given twice";
        }
        java.util.regex.Matcher noValue = java.util.regex.Pattern.compile("option '([^']+)' should be specified without").matcher(e.getMessage());
        if (noValue.find()) return "option '" + noValue.group(1) + "' takes no value";
        return e.getMessage();
    }
}
