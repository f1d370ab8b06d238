package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Runs programs from one {@link ProgramGenerator} (program i has seed {@code seed + i}) through a
 * {@link DifferentialHarness} until a count or a time is reached, on {@code jobs} threads. Each
 * mismatch is counted by class; the first few of each class are minimised ({@link Minimiser}) and,
 * with an output directory, written as {@code .data} reproducers ({@link Reproducer}). A program that
 * runs longer than {@link #HANG_AFTER} is reported as a hang through the progress sink, one whose load
 * takes longer than {@link #SLOW_LOAD} as a slow load.
 */
public final class Campaign {
    public static final Duration HANG_AFTER = Duration.ofSeconds(20);
    /** A load (gate + engine) slower than this is reported, with the program's origin, and counted. */
    public static final Duration SLOW_LOAD = Duration.ofMillis(500);

    /**
     * What to run. {@code count} or {@code time} (either may be null, not both). {@code pinned}: each worker
     * thread stays on one CPU ({@link dev.bpf4j.maps.CpuPin}), as Linux keeps a test run on one.
     */
    public record Plan(ProgramGenerator generator, long seed, Long count, Duration time, int jobs, Path outDir,
                       int minimisePerClass, boolean pinned, int linuxOnlyPerReason) {
        public Plan {
            if (count == null && time == null) throw new IllegalArgumentException("a campaign needs a count or a time");
            if (jobs < 1) throw new IllegalArgumentException("jobs must be at least 1");
            if (linuxOnlyPerReason < 0) throw new IllegalArgumentException("linuxOnlyPerReason must not be negative");
        }

        public Plan(ProgramGenerator generator, long seed, Long count, Duration time, int jobs, Path outDir,
                    int minimisePerClass, boolean pinned) {
            this(generator, seed, count, time, jobs, outDir, minimisePerClass, pinned, 0);
        }

        public Plan(ProgramGenerator generator, long seed, Long count, Duration time, int jobs, Path outDir, int minimisePerClass) {
            this(generator, seed, count, time, jobs, outDir, minimisePerClass, true);
        }
    }

    /** A minimised mismatch: the report of the smallest program and where it was written (null: not written). */
    public record Finding(String origin, DifferentialReport minimised, Path file) {}

    /**
     * A minimised program that only Linux rejects ({@link KernelVerdict#ONLY_LINUX_REJECTS}), shrunk while Linux
     * keeps refusing it with the same first error (numbers normalised, {@link CampaignStats#shorten}).
     */
    public record LinuxOnly(String reason, String origin, DifferentialReport minimised, Path file) {}

    public record Result(CampaignStats stats, List<Finding> findings, List<LinuxOnly> linuxOnly) {
        public Result(CampaignStats stats, List<Finding> findings) { this(stats, findings, List.of()); }
    }

    private final DifferentialHarness harness;
    private final Consumer<String> progress;

    public Campaign(DifferentialHarness harness, Consumer<String> progress) {
        this.harness = harness;
        this.progress = progress;
    }

    public Result run(Plan plan) {
        CampaignStats stats = new CampaignStats();
        List<Finding> findings = Collections.synchronizedList(new ArrayList<>());
        List<LinuxOnly> linuxOnly = Collections.synchronizedList(new ArrayList<>());
        Workers.Quota perClass = new Workers.Quota(plan.minimisePerClass());
        Workers.Quota perReason = new Workers.Quota(plan.linuxOnlyPerReason());
        Workers.Task task = (i, busy) -> {
            FuzzCase c;
            try {
                c = plan.generator().generate(plan.seed() + i);
            } catch (RuntimeException e) {
                progress.accept("internal error: " + plan.generator().name() + " seed " + (plan.seed() + i) + ": " + e);
                stats.add(new DifferentialReport(new FuzzCase(plan.generator().name() + " seed " + (plan.seed() + i), List.of(), null),
                        List.of(), List.of(new Difference("crash-generator", e.toString()))));
                return;
            }
            busy.start(c.origin());
            DifferentialReport r;
            try {
                r = harness.run(c);
            } catch (RuntimeException | Error e) { // the harness catches engine errors: this is a fuzzer bug
                progress.accept("internal error on " + c.origin() + ": " + e);
                r = new DifferentialReport(c, List.of(), List.of(new Difference("crash-harness", e.toString())));
            }
            busy.end();
            stats.add(r);
            for (EngineOutcome o : r.outcomes()) {
                if (o.loadNanos() > SLOW_LOAD.toNanos()) {
                    stats.slowLoad();
                    progress.accept(String.format("slow load: %s took %d ms on %s", c.origin(), o.loadNanos() / 1_000_000, o.engine()));
                }
            }
            if (!r.agree() && !r.outcomes().isEmpty() && perClass.claim(r.mismatchClass())) findings.add(minimise(r, plan.outDir()));
            if (r.kernelVerdict() == KernelVerdict.ONLY_LINUX_REJECTS) {
                String reason = CampaignStats.shorten(Oracle.kernel(r.outcomes()).first().message());
                if (perReason.claim(reason)) linuxOnly.add(minimiseLinuxOnly(r, reason, plan.outDir()));
            }
        };
        Workers.run("fuzz", new Workers.Limits(plan.count(), plan.time(), plan.jobs(), plan.pinned()), task, stats::hang, progress,
                () -> plan.generator().name() + ": " + stats.line());
        return new Result(stats, List.copyOf(findings), List.copyOf(linuxOnly));
    }

    /** Linux's first error on a case bpf4j accepts, normalised; null when the verdict is another. */
    private String linuxOnlyReason(FuzzCase c) {
        DifferentialReport x = harness.run(c);
        if (x.kernelVerdict() != KernelVerdict.ONLY_LINUX_REJECTS) return null;
        return CampaignStats.shorten(Oracle.kernel(x.outcomes()).first().message());
    }

    /** Shrinks a program only Linux rejects while Linux keeps refusing it for the same reason and bpf4j accepts it. */
    private LinuxOnly minimiseLinuxOnly(DifferentialReport r, String reason, Path outDir) {
        Minimiser m = new Minimiser(c -> reason.equals(linuxOnlyReason(c)), 1500);
        FuzzCase small = m.minimise(r.fuzzCase());
        DifferentialReport smallReport = harness.run(small);
        if (smallReport.kernelVerdict() != KernelVerdict.ONLY_LINUX_REJECTS) smallReport = r;
        String title = "only Linux rejects (" + reason + ")";
        Path file = outDir == null ? null
                : Reproducer.write(outDir.resolve("linux-only"), smallReport, title, r.fuzzCase().origin(), r.fuzzCase().length());
        progress.accept("only Linux rejects (" + reason + ") in " + r.fuzzCase().origin() + ": minimised " + r.fuzzCase().length()
                + " -> " + smallReport.fuzzCase().length() + " slots" + (file == null ? "" : ", " + file));
        return new LinuxOnly(reason, r.fuzzCase().origin(), smallReport, file);
    }

    private static Set<String> kinds(DifferentialReport r) {
        Set<String> out = new TreeSet<>();
        for (Difference d : r.differences()) out.add(d.kind());
        return out;
    }

    /** How often each {@code stdw [r10+off], imm} (what writes a frame before it is read) occurs, by offset. */
    static Map<Integer, Integer> frameWrites(FuzzCase c) {
        Map<Integer, Integer> out = new HashMap<>();
        for (Insn i : c.insns()) {
            if (i.opcode() == (Opcodes.ST | Opcodes.MEM | Opcodes.DW) && i.dst() == 10) {
                out.merge((int) i.off(), 1, Integer::sum);
            }
        }
        return out;
    }

    private static boolean covers(Map<Integer, Integer> have, Map<Integer, Integer> need) {
        for (var e : need.entrySet()) if (have.getOrDefault(e.getKey(), 0) < e.getValue()) return false;
        return true;
    }


    /**
     * Shrinks while the program shows the same differences (the same kinds, the first one first), so
     * that the minimiser does not drift from one bug to another of the same first kind.
     */
    private Finding minimise(DifferentialReport r, Path outDir) {
        String cls = r.mismatchClass();
        Set<String> kinds = kinds(r);
        // Linux does not zero stack: a kernel difference must not shrink into a read of never-written stack
        Map<Integer, Integer> frameWrites = frameWrites(r.fuzzCase());
        boolean kernel = cls.contains(Oracle.KERNEL);
        Minimiser m = new Minimiser(c -> {
            if (kernel && !covers(frameWrites(c), frameWrites)) return false;
            DifferentialReport x = harness.run(c);
            return cls.equals(x.mismatchClass()) && kinds.equals(kinds(x));
        }, 3000);
        FuzzCase small = m.minimise(r.fuzzCase());
        DifferentialReport smallReport = harness.run(small);
        if (!cls.equals(smallReport.mismatchClass())) smallReport = r; // cannot happen unless the mismatch is flaky
        Path file = outDir == null ? null : Reproducer.write(outDir, smallReport, r.fuzzCase().origin(), r.fuzzCase().length());
        progress.accept("mismatch " + cls + " in " + r.fuzzCase().origin() + ": minimised " + r.fuzzCase().length() + " -> "
                + smallReport.fuzzCase().length() + " slots" + (file == null ? "" : ", " + file));
        return new Finding(r.fuzzCase().origin(), smallReport, file);
    }
}
