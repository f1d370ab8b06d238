package dev.bpf4j.cli;

import dev.bpf4j.fuzz.Campaign;
import dev.bpf4j.fuzz.CorpusFiles;
import dev.bpf4j.fuzz.DataFileMutator;
import dev.bpf4j.fuzz.DifferentialHarness;
import dev.bpf4j.fuzz.GrammarGenerator;
import dev.bpf4j.fuzz.GrammarOptions;
import dev.bpf4j.fuzz.Oracle;
import dev.bpf4j.fuzz.ProgramGenerator;
import dev.bpf4j.fuzz.RawBytesGenerator;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.api.Engines;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bpf4j fuzz}: a differential campaign between engines (interpreter = reference, JIT, Linux) over
 * generated, random or mutated programs; minimised {@code .data} reproducers of every mismatch class
 * go to {@code --out}. Exit 1 on any mismatch, crash or hang.
 */
final class FuzzCommand implements Command {
    static final String DEFAULT_CORPUS = "it-tests/src/test/resources/conformance";

    @Override public String name() { return "fuzz"; }
    @Override public String summary() { return "differential fuzzing of the engines, with minimised .data reproducers"; }
    @Override public String usage() {
        return "bpf4j fuzz [--seed S] [--count N | --time T] [--mode grammar|bytes|mutate|replay|mutate-objects] [--frame-escapes] [--corpus DIR] "
                + "[--out DIR] [--engines interp,jit,jvm[,kernel]] [--jobs N] [--minimise N] [--objects PERCENT] [--linux-only N] [--no-pin]";
    }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("--seed", "S", "the campaign's seed", "the current time in ms"),
                Opt.valued("--count", "N", "programs to run", "1000"),
                Opt.valued("--time", "T", "run for this long instead (90s, 10m, 1h)", null),
                Opt.valued("--mode", "MODE", "grammar (generated programs), bytes (random bytes), mutate (mutated .data files of --corpus),"
                        + " replay (each .data file of --corpus once, as it is), mutate-objects (structure-aware mutants of the .o files of --corpus)",
                        "grammar"),
                Opt.flag("--frame-escapes", "grammar: also the issue-21 classes (stack pointers escaping their frame)"),
                Opt.valued("--corpus", "DIR", "the files mutate, replay and mutate-objects start from", DEFAULT_CORPUS),
                Opt.valued("--out", "DIR", "where minimised reproducers go (default: none written)", null),
                Opt.valued("--engines", "LIST", "a comma-separated list of interp, jit, jvm and kernel (Linux's verifier verdict and results too,"
                        + " skipped with the reason where bpf() is refused)", "interp,jit,jvm"),
                Opt.valued("--jobs", "N", "worker threads", "1"),
                Opt.valued("--minimise", "N", "reproducers minimised per mismatch class", "5"),
                Opt.valued("--objects", "PERCENT", "grammar: share of programs that are tc objects with maps", "50"),
                Opt.valued("--linux-only", "N", "with the kernel: minimised reproducers of the programs only Linux rejects, N per Linux"
                        + " error, into --out/linux-only", null),
                Opt.flag("--no-pin", "do not pin workers to a CPU (shows per-CPU updates split by a migration mid-run)"));
    }

    @Override public String parameters() { return null; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        if (!args.positionals().isEmpty()) throw new UsageException("unexpected argument " + args.positionals().get(0));
        if (args.option("--mode").filter(ObjectFuzzCommand.MODE::equals).isPresent()) return ObjectFuzzCommand.run(args, out, err);
        CampaignOptions o = CampaignOptions.parse(args);
        int linuxOnly = (int) args.option("--linux-only").map(s -> parseLong("--linux-only", s)).orElse(0L).longValue();
        if (linuxOnly < 0) throw new UsageException("--linux-only must not be negative");
        List<Engine> engines = engines(args.option("--engines").orElse("interp,jit,jvm"));
        boolean kernel = engines.stream().anyMatch(e -> e.name().equals(Oracle.KERNEL));
        ProgramGenerator generator = generator(args, kernel);
        if (generator instanceof DataFileMutator m && generator.name().equals("replay")) {
            if (args.option("--count").isPresent() || args.option("--time").isPresent()) {
                throw new UsageException("replay runs every file once: no --count or --time");
            }
            o = o.everyFileOnce(m.corpusSize());
        }
        DifferentialHarness harness = new DifferentialHarness(engines);

        out.println("fuzz " + generator.name() + " seed " + o.seed() + " on " + harness.engines().stream().map(Engine::name).toList()
                + ", " + o.extent("programs") + ", " + o.jobs() + " job(s)");
        Campaign.Result r = new Campaign(harness, err::println).run(new Campaign.Plan(generator, o.seed(), o.count(), o.time(), o.jobs(),
                o.outDir(), o.minimise(), !args.flag("--no-pin"), linuxOnly));
        for (Campaign.Finding f : r.findings()) {
            out.println("mismatch " + f.minimised().mismatchClass() + " (" + f.origin() + ")"
                    + (f.file() == null ? "" : ": " + f.file()));
            out.print(f.minimised().describe().indent(2));
        }
        for (Campaign.LinuxOnly l : r.linuxOnly()) {
            out.println("only Linux rejects: " + l.reason() + " (" + l.origin() + ", " + l.minimised().fuzzCase().length() + " slots)"
                    + (l.file() == null ? "" : ": " + l.file()));
            out.print(l.minimised().describe().indent(2));
        }
        out.printf("fuzz %s seed %d: %s in %.1f s%n", generator.name(), o.seed(), r.stats().line(), r.stats().seconds());
        out.print(r.stats().summary());
        return r.stats().mismatches() + r.stats().crashes() + r.stats().hangs() > 0 ? 1 : 0;
    }

    /** With the kernel among the engines, grammar programs are written so that Linux defines their results too. */
    private static ProgramGenerator generator(Args args, boolean kernel) {
        String mode = args.option("--mode").orElse("grammar");
        boolean frames = args.flag("--frame-escapes");
        if (frames && !mode.equals("grammar")) throw new UsageException("--frame-escapes applies to --mode grammar only");
        return switch (mode) {
            case "grammar" -> new GrammarGenerator(GrammarOptions.defaults().withFrameEscapes(frames).withKernelComparable(kernel)
                    .withObjectPercent(objectPercent(args)));
            case "bytes" -> new RawBytesGenerator();
            case "mutate", "replay" -> {
                Path corpus = Path.of(args.option("--corpus").orElse(DEFAULT_CORPUS));
                if (!Files.exists(corpus)) throw new CliException("no corpus at " + corpus + " (give --corpus DIR)");
                yield new DataFileMutator(CorpusFiles.collect(corpus), mode.equals("replay"));
            }
            default -> throw new UsageException("unknown mode '" + mode + "' (expected grammar, bytes, mutate or replay)");
        };
    }

    private static int objectPercent(Args args) {
        long p = args.option("--objects").map(v -> parseLong("--objects", v)).orElse(50L);
        if (p < 0 || p > 100) throw new UsageException("--objects is a percentage (0 to 100), not " + p);
        return (int) p;
    }

    /** The engines named in {@code --engines}, in order (the first is the reference). */
    static List<Engine> engines(String list) {
        List<Engine> available = Engines.available();
        List<Engine> out = new ArrayList<>();
        for (String name : list.split(",")) {
            String n = name.trim();
            Engine e = available.stream().filter(x -> x.name().equals(n)).findFirst()
                    .orElseThrow(() -> new UsageException("unknown or unavailable engine '" + n + "' in --engines"));
            out.add(e);
        }
        if (out.isEmpty()) throw new UsageException("--engines names no engine");
        return out;
    }

    static long parseLong(String option, String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number, got '" + s + "'");
        }
    }

    /** {@code 90}, {@code 90s}, {@code 10m}, {@code 1h}. */
    static Duration parseDuration(String s) {
        String t = s.trim();
        long unit = 1;
        if (t.endsWith("s")) t = t.substring(0, t.length() - 1);
        else if (t.endsWith("m")) { unit = 60; t = t.substring(0, t.length() - 1); }
        else if (t.endsWith("h")) { unit = 3600; t = t.substring(0, t.length() - 1); }
        long v = parseLong("--time", t);
        if (v <= 0) throw new UsageException("--time must be positive");
        return Duration.ofSeconds(v * unit);
    }
}
