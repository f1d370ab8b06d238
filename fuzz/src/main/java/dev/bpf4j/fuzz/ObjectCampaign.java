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
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
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
        Map<String, Integer> perClass = new HashMap<>();
        AtomicLong next = new AtomicLong();
        long deadline = plan.time() == null ? Long.MAX_VALUE : System.nanoTime() + plan.time().toNanos();
        long[] busySince = new long[plan.jobs()];
        String[] busyWith = new String[plan.jobs()];
        List<Thread> workers = new ArrayList<>();
        for (int j = 0; j < plan.jobs(); j++) {
            int job = j;
            Thread t = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    long i = next.getAndIncrement();
                    if (plan.count() != null && i >= plan.count()) break;
                    ObjectMutator.Mutant m = plan.mutator().mutate(plan.seed() + i);
                    synchronized (busySince) { busySince[job] = System.nanoTime(); busyWith[job] = m.origin(); }
                    ObjectReport r;
                    try {
                        r = differential.run(m.bytes(), m.origin());
                    } catch (RuntimeException | Error e) { // the differential catches what the library throws: a fuzzer bug
                        r = new ObjectReport(m.origin(), null, List.of(), List.of(new Difference("crash-harness", e.toString())));
                    }
                    synchronized (busySince) { busySince[job] = 0; }
                    stats.add(r);
                    if (!r.agree() && claim(perClass, r.mismatchClass(), plan.minimisePerClass())) findings.add(minimise(plan, m, r));
                }
            }, "fuzz-objects-" + j);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        watch(workers, busySince, busyWith, stats);
        return new Result(stats, List.copyOf(findings));
    }

    /** Waits for the workers, reporting progress every 2 s and each worker busy with one object for too long. */
    private void watch(List<Thread> workers, long[] busySince, String[] busyWith, ObjectCampaignStats stats) {
        boolean[] hung = new boolean[workers.size()];
        long lastProgress = System.nanoTime();
        while (true) {
            boolean waiting = false;
            synchronized (busySince) {
                for (int j = 0; j < workers.size(); j++) {
                    if (!workers.get(j).isAlive()) continue;
                    boolean now = busySince[j] != 0 && System.nanoTime() - busySince[j] > Campaign.HANG_AFTER.toNanos();
                    if (now && !hung[j]) {
                        stats.hang();
                        progress.accept("hang: " + busyWith[j] + " has run for more than " + Campaign.HANG_AFTER.toSeconds() + " s");
                    }
                    hung[j] = now;
                    if (!now) waiting = true;
                }
            }
            if (!waiting) return;
            try {
                workers.get(0).join(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (System.nanoTime() - lastProgress > 2_000_000_000L) {
                lastProgress = System.nanoTime();
                progress.accept("mutate-objects: " + stats.line());
            }
        }
    }

    private static boolean claim(Map<String, Integer> perClass, String cls, int limit) {
        synchronized (perClass) {
            int n = perClass.getOrDefault(cls, 0);
            if (n >= limit) return false;
            perClass.put(cls, n + 1);
            return true;
        }
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
