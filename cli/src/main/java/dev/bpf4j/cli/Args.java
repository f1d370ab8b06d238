package dev.bpf4j.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Hand-rolled argument splitting: {@code --name value}, {@code --name=value} and positionals. */
public final class Args {
    private final Map<String, String> options = new HashMap<>();
    private final List<String> positionals = new ArrayList<>();

    /** Parses {@code args}; every option must be one of {@code valued} and take a value. */
    public Args(List<String> args, Set<String> valued) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                positionals.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (a.startsWith("-") && a.length() > 1) {
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                if (!valued.contains(name)) throw new UsageException("unknown option '" + name + "'");
                if (value == null) {
                    if (i + 1 >= args.size()) throw new UsageException("option '" + name + "' needs a value");
                    value = args.get(++i);
                }
                if (options.put(name, value) != null) throw new UsageException("option '" + name + "' given twice");
            } else {
                positionals.add(a);
            }
        }
    }

    public Optional<String> option(String name) { return Optional.ofNullable(options.get(name)); }

    public List<String> positionals() { return positionals; }

    /** The single positional argument, or a usage error naming {@code what}. */
    public String single(String what) {
        if (positionals.isEmpty()) throw new UsageException("missing " + what);
        if (positionals.size() > 1) throw new UsageException("expected one " + what + ", got " + positionals.size() + ": " + positionals);
        return positionals.get(0);
    }
}
