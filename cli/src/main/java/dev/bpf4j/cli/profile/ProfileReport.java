package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.sampling.SamplerStats;

import java.util.List;

/**
 * One profiled run of the workload on one engine. {@code perf} is false when the Java-stack sampler
 * ran instead of perf_event_open: asked for, or as the fallback where perf_event_open was refused
 * ({@code refusal} says why); {@code chain}: the JIT symbols of main, sub1, sub2, sub3 (empty for other engines); {@code stats} and
 * {@code accuracy} are then null. {@code dropped}: samples read but not unwound (queue full).
 * {@code probeAccuracy}: the same for the probe's copy of the chain reached from native code through
 * a trampoline (null without a native probe).
 */
public record ProfileReport(String engine, List<String> chain, FoldedStacks stacks, boolean perf, String refusal, SamplerStats stats,
                            ChainAccuracy.Result accuracy, long dropped, long runs, long elapsedNanos, ChainAccuracy.Result probeAccuracy) {
    public ProfileReport(String engine, List<String> chain, FoldedStacks stacks, boolean perf, String refusal, SamplerStats stats,
                         ChainAccuracy.Result accuracy, long dropped, long runs, long elapsedNanos) {
        this(engine, chain, stacks, perf, refusal, stats, accuracy, dropped, runs, elapsedNanos, null);
    }

    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(engine).append(": ").append(runs).append(" runs in ").append(String.format("%.2f s", elapsedNanos / 1e9)).append(", ");
        if (perf) {
            sb.append(stats.samples()).append(" samples (perf_event_open cpu-clock, ").append(stats.threads()).append(" threads), ")
              .append(stats.lost()).append(" lost");
            if (dropped > 0) sb.append(", ").append(dropped).append(" dropped (unwinder queue full)");
            if (stats.threadsRefused() > 0) sb.append(", ").append(stats.threadsRefused()).append(" threads not sampled: ").append(stats.firstThreadError());
        } else {
            sb.append(stacks.total()).append(" samples of the workload thread's Java stack").append(refusal == null ? "" : " (fallback)");
        }
        return sb.toString();
    }
}
