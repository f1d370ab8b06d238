package dev.bpf4j.cli.profile;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.sampling.PerfRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's engine check: every sample of the profile also runs the bundled profile program
 * (perf_event, {@code bpf_get_stackid} per sample) on the interpreter and on the JIT, and at the end
 * the two must hold the same stack ids, frames and maps — and their stacks should be the ones
 * bpf4j's own unwind of the same samples found.
 */
public final class EngineAgreement implements ProfileSession.SampleTap, AutoCloseable {
    private final SampleProgramRunner runner;
    private final SampleQueue queue;
    private final Map<String, FoldedStacks> folded = new LinkedHashMap<>();
    private List<String> differences = List.of();

    public EngineAgreement() {
        runner = new SampleProgramRunner(ProfileObject.open(), ProfileObject.PROGRAM, List.of(Engines.byName("interp"), Engines.byName("jit")),
                new Unwinder(Profiler.processCode()));
        queue = new SampleQueue(s -> runner.accept(PerfEventSample.of(s)));
    }

    @Override public void accept(PerfRecord.Sample sample) { queue.offer(sample); }

    @Override public void finish() {
        queue.finish();
        Symbolizer names = new Symbolizer(Profiler.processCode(), SyntheticFrames.global());
        for (SampleProgramRunner.EngineCopy c : runner.copies()) c.stacks().ifPresent(s -> folded.put(c.engine(), s.folded(names)));
        differences = runner.differences();
    }

    /** Whether {@link #finish()} ran (not when perf_event_open was refused). */
    public boolean ran() { return !folded.isEmpty(); }

    /**
     * Lines for the user: how many samples each engine ran, whether the engines agree, and whether
     * the top {@code n} stacks of the program are those of {@code direct} (bpf4j's own unwind).
     */
    public List<String> describe(FoldedStacks direct, int n) {
        List<String> out = new ArrayList<>();
        SampleProgramRunner.EngineCopy first = runner.copies().get(0);
        long missed = first.stacks().map(MapStacks::missed).orElse(0L);
        out.add(String.format("perf_event program %s (bpf_get_stackid per sample) on interp and jit over the same %d samples (%d dropped, %d in %s):",
                ProfileObject.RESOURCE, first.program().runs(), queue.dropped(), missed, MapStacks.MISSED));
        if (differences.isEmpty()) {
            out.add("  engines agree: same stack ids, frames and counts, same maps");
        } else {
            out.add("  engines DIFFER (" + differences.size() + " lines):");
            differences.stream().limit(10).forEach(d -> out.add("    " + d));
        }
        FoldedStacks program = folded.get("jit");
        if (program != null) {
            List<List<String>> a = keys(program.top(n)), b = keys(direct.top(n));
            out.add("  its top " + n + " stacks " + (a.equals(b) ? "are" : "are NOT") + " bpf4j's own unwind's top " + n
                    + " (" + counts(program.top(n)) + " vs " + counts(direct.top(n)) + " samples)");
        }
        return out;
    }

    public boolean agree() { return differences.isEmpty(); }

    private static List<List<String>> keys(List<Map.Entry<List<String>, Long>> top) {
        return top.stream().map(Map.Entry::getKey).toList();
    }

    private static String counts(List<Map.Entry<List<String>, Long>> top) {
        return String.join("/", top.stream().map(e -> Long.toString(e.getValue())).toList());
    }

    @Override public void close() {
        queue.finish();
        runner.close();
    }
}
