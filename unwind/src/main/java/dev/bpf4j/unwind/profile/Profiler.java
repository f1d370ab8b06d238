package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleUnwinder;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;

import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * A perf-style profile of this process: samples every thread ({@link Sampler}), unwinds each sample
 * at once on the reader thread (while the JIT code it hit is still registered), names the frames
 * and counts the folded stacks. {@code threads} picks the tids whose samples count; {@code observer}
 * sees every unwound sample (for accuracy checks).
 */
public final class Profiler implements AutoCloseable {
    private final FoldedStacks stacks = new FoldedStacks();
    private final Sampler sampler;
    private final SampleUnwinder unwinder;
    private final Symbolizer symbolizer;
    private final IntPredicate threads;
    private final Consumer<UnwoundSample> observer;

    public Profiler(SamplerOptions options, Unwinder unwinder, Symbolizer symbolizer, IntPredicate threads, Consumer<UnwoundSample> observer) {
        this.unwinder = new SampleUnwinder(unwinder);
        this.symbolizer = symbolizer;
        this.threads = threads;
        this.observer = observer;
        this.sampler = new Sampler(options, this::onSample);
    }

    /** Every thread of this process, the process-wide unwinder and symbolizer. */
    public static Profiler ofProcess(SamplerOptions options) {
        return new Profiler(options, Unwinder.global(), Symbolizer.global(), tid -> true, s -> {});
    }

    /** Starts sampling; throws {@link dev.bpf4j.unwind.sampling.SamplingRefusedException} when refused. */
    public Profiler start() {
        sampler.start();
        return this;
    }

    public SamplerStats stop() { return sampler.stop(); }

    @Override public void close() { sampler.close(); }

    public FoldedStacks stacks() { return stacks; }

    private void onSample(PerfRecord.Sample s) {
        if (!threads.test(s.tid())) return;
        var trace = unwinder.unwind(s);
        if (trace.ips().isEmpty()) return;
        UnwoundSample u = new UnwoundSample(s, trace, symbolizer.symbolize(trace));
        stacks.add(u.foldedFrames());
        observer.accept(u);
    }
}
