package dev.bpf4j.cli;

import dev.bpf4j.fuzz.ObjectCampaign;
import dev.bpf4j.fuzz.ObjectDifferential;
import dev.bpf4j.fuzz.ObjectMutator;
import dev.bpf4j.engine.Engine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code bpf4j fuzz --mode mutate-objects}: structure-aware mutants of the ELF objects under {@code --corpus}
 * ({@link ObjectMutator}), each opened, loaded and run on every engine ({@link ObjectDifferential}); findings
 * are minimised and written to {@code --out} as {@code object-<hash>.o} with a {@code .txt} report.
 * Exit 1 on any mismatch, crash or hang.
 */
final class ObjectFuzzCommand {
    private ObjectFuzzCommand() {}

    static final String MODE = "mutate-objects";
    static final String DEFAULT_CORPUS = "it-tests/src/test/resources/objects";
    static final String ARENA_CAP = "bpf4j.maps.maxArenaBytes";

    /** The options of {@code bpf4j fuzz} that apply: --seed, --count | --time, --corpus, --out, --engines, --jobs, --minimise. */
    static int run(Args args, PrintStream out, PrintStream err) {
        if (args.flag("--frame-escapes")) throw new UsageException("--frame-escapes applies to --mode grammar only");
        CampaignOptions o = CampaignOptions.parse(args);
        Path corpus = Path.of(args.option("--corpus").orElse(DEFAULT_CORPUS));
        if (!Files.exists(corpus)) throw new CliException("no corpus at " + corpus + " (give --corpus DIR)");
        ObjectMutator mutator;
        try {
            mutator = new ObjectMutator(objects(corpus));
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage() + " under " + corpus);
        }
        List<Engine> engines = FuzzCommand.engines(args.option("--engines").orElse("interp,jit,jvm"));
        // objects load through BpfObject, which runs bpf4j's engines; the kernel oracle takes programs, not objects
        if (engines.stream().anyMatch(e -> e.name().equals("kernel"))) throw new UsageException(MODE + " compares bpf4j's engines (interp, jit)");
        ObjectDifferential differential = new ObjectDifferential(engines);
        // mutated map definitions ask for gigabytes, which bpf4j zeroes at creation: cap each map as a memcg would
        boolean capped = System.getProperty(ARENA_CAP) == null;
        if (capped) System.setProperty(ARENA_CAP, String.valueOf(64L << 20));
        try {
            return campaign(mutator, differential, o, out, err);
        } finally {
            if (capped) System.clearProperty(ARENA_CAP);
        }
    }

    private static int campaign(ObjectMutator mutator, ObjectDifferential differential, CampaignOptions o, PrintStream out, PrintStream err) {
        out.println("fuzz mutate-objects seed " + o.seed() + " on " + differential.engines().stream().map(e -> e.name()).toList()
                + " over " + mutator.corpusSize() + " objects, " + o.extent("objects")
                + ", " + o.jobs() + " job(s), maps up to " + (Long.getLong(ARENA_CAP) >> 20) + " MiB (-D" + ARENA_CAP + ")");
        ObjectCampaign.Result r = new ObjectCampaign(differential, err::println)
                .run(new ObjectCampaign.Plan(mutator, o.seed(), o.count(), o.time(), o.jobs(), o.outDir(), o.minimise()));
        for (ObjectCampaign.Finding f : r.findings()) {
            out.println("finding " + f.minimised().mismatchClass() + " (" + f.mutant().origin() + ": " + f.mutant().mutations() + ")"
                    + (f.file() == null ? "" : ": " + f.file()));
            out.print(f.minimised().describe().indent(2));
        }
        out.printf("fuzz mutate-objects seed %d: %s in %.1f s%n", o.seed(), r.stats().line(), r.stats().seconds());
        return r.stats().mismatches() + r.stats().crashes() + r.stats().hangs() > 0 ? 1 : 0;
    }

    /** Every {@code *.o} under {@code root} (or the file itself), sorted. */
    static List<Path> objects(Path root) {
        if (Files.isRegularFile(root)) return List.of(root);
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".o")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
        }
    }
}
