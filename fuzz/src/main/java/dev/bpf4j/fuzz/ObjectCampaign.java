package dev.bpf4j.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs mutated objects ({@link ObjectMutator}; mutant i has seed {@code seed + i}) through an
 * {@link ObjectDifferential} until a count or a time is reached, on {@code jobs} threads. The first few
 * findings of each class are minimised ({@link ObjectMinimiser}) and, with an output directory, written as
 * {@code object-<hash>.o} beside a {@code .txt} with the report. An object still running after
 * {@link Campaign#HANG_AFTER} is reported as a hang, and the campaign does not wait for it.
 */
public final class ObjectCampaign {
    public record Plan(ObjectMutator mutator, long seed, Long count, Duration time, int jobs, Path outDir, int minimisePerClass) {
        public Plan {
            if (count == null && time == null) throw new IllegalArgumentException("a campaign needs a count or a time");
            if (jobs < 1) throw new IllegalArgumentException("jobs must be at least 1");
        }
    }

    /** A minimised finding: the mutant, the report of its smallest form, and where it was written (null: not written). */
    public record Finding(ObjectMutator.Mutant mutant, ObjectReport minimised, byte[] bytes, Path file) {}

    public record Result(ObjectCampaignStats stats, List<Finding> findings) {}

    private final ObjectDifferential differential;
    private final Consumer<String> progress;

    public ObjectCampaign(ObjectDifferential differential, Consumer<String> progress) {
        this.differential = differential;
        this.progress = progress;
    }

    public Result run(Plan plan) {
        ObjectCampaignStats stats = new ObjectCampaignStats();
        List<Finding> findings = Collections.synchronizedList(new ArrayList<>());
        Workers.Quota perClass = new Workers.Quota(plan.minimisePerClass());
        Workers.Task task = (i, busy) -> {
            ObjectMutator.Mutant m = plan.mutator().mutate(plan.seed() + i);
            busy.start(m.origin());
            ObjectReport r;
            try {
                r = differential.run(m.bytes(), m.origin());
            } catch (RuntimeException | Error e) { // the differential catches what the library throws: a fuzzer bug
                r = new ObjectReport(m.origin(), null, List.of(), List.of(new Difference("crash-harness", e.toString())));
            }
            busy.end();
            stats.add(r);
            if (!r.agree() && perClass.claim(r.mismatchClass())) findings.add(minimise(plan, m, r));
        };
        Workers.run("fuzz-objects", new Workers.Limits(plan.count(), plan.time(), plan.jobs(), false), task, stats::hang, progress,
                () -> "mutate-objects: " + stats.line());
        return new Result(stats, List.copyOf(findings));
    }

    private Finding minimise(Plan plan, ObjectMutator.Mutant m, ObjectReport r) {
        String cls = r.mismatchClass();
        byte[] original = plan.mutator().seedBytes(m.seedObject());
        byte[] small = new ObjectMinimiser(b -> cls.equals(differential.run(b, m.origin()).mismatchClass()), 400)
                .minimise(original, m.bytes());
        ObjectReport smallReport = differential.run(small, m.origin());
        if (!cls.equals(smallReport.mismatchClass())) { // flaky: keep the mutant as it was
            small = m.bytes();
            smallReport = r;
        }
        Path file = plan.outDir() == null ? null : write(plan.outDir(), m, small, smallReport);
        progress.accept("finding " + cls + " in " + m.origin() + " (" + m.mutations() + ")" + (file == null ? "" : ": " + file));
        return new Finding(m, smallReport, small, file);
    }

    private static Path write(Path dir, ObjectMutator.Mutant m, byte[] bytes, ObjectReport r) {
        try {
            Files.createDirectories(dir);
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 12);
            Path file = dir.resolve("object-" + hash + ".o");
            Files.write(file, bytes);
            Files.writeString(dir.resolve("object-" + hash + ".txt"), "# " + m.origin() + "\n# mutations: " + m.mutations()
                    + "\n# minimised to the bytes that still show it\n" + r.describe(), StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a finding to " + dir + ": " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
