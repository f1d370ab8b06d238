package dev.bpf4j.cli.profile;

import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.profile.JavaStackSampler;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;

import java.util.List;

/**
 * Profiles the bundled workload on one engine: loads {@link SubprogramChain}, starts the sampler
 * (every thread of this JVM) or, where perf_event_open is refused, the Java-stack fallback on the
 * workload thread, runs the program from Java in a loop for the given time, and reports the folded
 * stacks, the sampler's counts and — under the JIT — how exact the chains of samples in its code were.
 */
public final class ProfileSession {
    private ProfileSession() {}

    /**
     * @param javaStacks sample the workload thread's Java stack instead of perf_event_open
     * @param tap        also sees every perf sample (null: none)
     */
    public record Settings(SamplerOptions sampler, long durationNanos, boolean threadRoots, boolean javaStacks, SampleTap tap) {
        public Settings(SamplerOptions sampler, long durationNanos, boolean threadRoots, boolean javaStacks) {
            this(sampler, durationNanos, threadRoots, javaStacks, null);
        }
    }

    /** Something else done with the samples of a perf profile, finished while the workload is still loaded. */
    public interface SampleTap {
        /** On the sampler's reader thread: must be quick. */
        void accept(PerfRecord.Sample sample);

        /** After sampling stopped, before the workload's JIT code is unloaded. */
        void finish();
    }

    public static ProfileReport run(Engine engine, Settings settings) {
        return run(engine, settings, null);
    }

    /** As above; the workload loop also calls {@code nativeCall} after each run of the program (null: not). */
    public static ProfileReport run(Engine engine, Settings settings, NativeChainProbe nativeCall) {
        Program program = SubprogramChain.program();
        try (Executable exe = engine.load(program, LoadOptions.defaults())) {
            List<CodeRegion> chain = chainFunctions(exe);
            List<String> symbols = chain.stream().map(CodeRegion::symbol).toList();
            ChainAccuracy accuracy = new ChainAccuracy(chain);
            ChainAccuracy probeAccuracy = nativeCall == null ? null : NativeChainProbe.accuracy(nativeCall);
            WorkloadThread workload = new WorkloadThread(exe, SubprogramChain.ITERATIONS_PER_RUN, settings.durationNanos(), Long.MAX_VALUE, nativeCall);
            try {
                if (settings.javaStacks()) return fallback(engine, symbols, settings, workload, null);
                Profiler profiler = Profiler.ofProcess(settings.sampler(), probeAccuracy == null ? accuracy : accuracy.andThen(probeAccuracy))
                        .preferThread(workload.tid());
                if (settings.threadRoots()) profiler.withThreadRoots();
                if (settings.tap() != null) profiler.alsoTo(settings.tap()::accept);
                try {
                    profiler.start();
                } catch (SamplingRefusedException refused) {
                    return fallback(engine, symbols, settings, workload, refused.getMessage());
                }
                SamplerStats stats;
                try {
                    workload.go();
                    workload.join();
                } finally {
                    stats = profiler.stop();
                    if (settings.tap() != null) settings.tap().finish();
                }
                // Named before the program is closed: its JIT symbols leave the code map with it.
                return new ProfileReport(engine.name(), symbols, profiler.stacks(), true, null, stats, accuracy.result(),
                        profiler.dropped(), workload.runs(), workload.elapsedNanos(), probeAccuracy == null ? null : probeAccuracy.result());
            } finally {
                workload.cancel();
            }
        }
    }

    private static ProfileReport fallback(Engine engine, List<String> chain, Settings settings, WorkloadThread workload, String refusal) {
        long hz = settings.sampler().attr().frequency() ? settings.sampler().attr().rate() : 99;
        JavaStackSampler java = new JavaStackSampler(workload.thread(), hz).start();
        try {
            workload.go();
            workload.join();
        } finally {
            java.stop();
        }
        return new ProfileReport(engine.name(), chain, java.stacks(), false, refusal, null, null, 0, workload.runs(), workload.elapsedNanos());
    }

    /** Under the JIT: main and the three subprograms, in call order; empty for other engines. */
    static List<CodeRegion> chainFunctions(Executable exe) {
        if (!(exe instanceof JitExecutable jit)) return List.of();
        List<CodeRegion> fns = jit.codeRegions().stream().filter(r -> !r.symbol().endsWith("__entry") && !r.symbol().endsWith("__stubs")).toList();
        if (fns.size() != 4) throw new IllegalStateException("expected main and 3 subprograms, got " + fns.stream().map(CodeRegion::symbol).toList());
        return fns;
    }
}
