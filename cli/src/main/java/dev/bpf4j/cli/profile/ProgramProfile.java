package dev.bpf4j.cli.profile;

import dev.bpf4j.api.OpenObject;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;
import dev.bpf4j.unwind.JvmPerfMap;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A profile made by a perf_event program, as {@code bcc profile} makes one: every sample of the
 * target (this JVM running the bundled workload, or a command started for it) runs the program on
 * each engine ({@link SampleProgramRunner}); the stacks come from its maps afterwards.
 */
public final class ProgramProfile {
    private ProgramProfile() {}

    /**
     * What was profiled and how it went; {@code runner} still holds each engine's maps (close it).
     * {@code folded}: per engine, its counted stacks named while the profiled code was still loaded
     * (empty for an object without a stack map + counting map).
     */
    public record Result(SampleProgramRunner runner, Map<String, FoldedStacks> folded, SamplerStats stats, long dropped, String target,
                         long elapsedNanos, Integer exitStatus, long runnerCpuNanos, CallchainCheck callchain, KernelRun kernel) {
        /** CPU time of the sampler's reader and the program runner, as a share of one CPU over the wall time. */
        public String overhead() {
            long cpu = stats.readerCpuNanos() + runnerCpuNanos;
            return String.format("sampler threads' CPU: reader %.1f ms + program runner %.1f ms = %.2f%% of one CPU over %.2f s",
                    stats.readerCpuNanos() / 1e6, runnerCpuNanos / 1e6, 100.0 * cpu / elapsedNanos, elapsedNanos / 1e9);
        }
    }

    /**
     * Linux's copy of the program ({@code --engine kernel}), attached to its own perf events on the
     * same target: its stacks named as bpf4j's are, or ({@code stacks} null) why it did not run.
     * The kernel takes its own samples, so its counts are compared by stack id, not sample by sample.
     */
    public record KernelRun(MapStacks stacks, FoldedStacks folded, String skipped) {
        static KernelRun skipped(String why) { return new KernelRun(null, null, why); }
    }

    /** The kernel side while it runs: the loaded program, or why there is none. */
    private static final class KernelSide {
        KernelProfile profile;
        String skipped;

        /** Loads the program into Linux, or records why not (bpf() refused, the kernel's verifier said no). */
        KernelSide(OpenObject open, String program) {
            String refused = KernelProfile.unavailableReason();
            if (refused != null) {
                skipped = "bpf() is not permitted here: " + refused;
                return;
            }
            try {
                profile = KernelProfile.load(open.spec(), program);
            } catch (RuntimeException e) {
                skipped = "Linux did not load " + program + ": " + e.getMessage();
            }
        }

        /** Attaches to each of {@code tids}; a refused perf_event_open ends the kernel side with its reason. */
        void attach(SamplerOptions options, List<Integer> tids, boolean inherit) {
            if (profile == null) return;
            try {
                for (int tid : tids) profile.attach(tid, options.attr(), inherit);
            } catch (SamplingRefusedException e) {
                skipped = "perf_event_open (with PERF_EVENT_IOC_SET_BPF) refused: " + e.getMessage();
                profile.close();
                profile = null;
            }
        }

        /** Detaches, reads and names the stacks, closes; call while the profiled code is still loaded. */
        KernelRun finish(Symbolizer names) {
            if (profile == null) return KernelRun.skipped(skipped);
            try {
                profile.detach();
                MapStacks stacks = profile.mapStacks();
                return new KernelRun(stacks, stacks.folded(names), null);
            } finally {
                close();
            }
        }

        void close() {
            if (profile != null) profile.close();
            profile = null;
        }
    }

    /** This JVM's threads now (the kernel side attaches one event to each; threads started later are not followed). */
    private static List<Integer> selfThreads() {
        String[] names = new java.io.File("/proc/self/task").list();
        List<Integer> out = new java.util.ArrayList<>();
        if (names != null) for (String n : names) out.add(Integer.parseInt(n));
        return out;
    }

    /** Runs each sample through the engines, and checks its unwind against the kernel's callchain when it has one. */
    private static SampleQueue queue(SampleProgramRunner runner, CallchainCheck check) {
        return new SampleQueue(s -> {
            runner.accept(PerfEventSample.of(s));
            check.accept(s);
        });
    }

    private static Map<String, FoldedStacks> fold(SampleProgramRunner runner, Symbolizer symbolizer) {
        Map<String, FoldedStacks> out = new LinkedHashMap<>();
        for (SampleProgramRunner.EngineCopy c : runner.copies()) c.stacks().ifPresent(s -> out.put(c.engine(), s.folded(symbolizer)));
        return out;
    }

    /** This JVM while the JIT runs the bundled subprogram chain for {@code nanos}. */
    public static Result self(SamplerOptions options, OpenObject open, String program, List<Engine> engines, Engine workloadEngine,
                              long nanos, boolean kernel) {
        ProcessCode code = Profiler.processCode();
        Unwinder unwinder = new Unwinder(code);
        SampleProgramRunner runner = new SampleProgramRunner(open, program, engines, unwinder);
        CallchainCheck check = new CallchainCheck(unwinder);
        KernelSide inKernel = kernel ? new KernelSide(open, program) : null;
        try (Executable exe = workloadEngine.load(SubprogramChain.program(), LoadOptions.defaults())) {
            WorkloadThread workload = new WorkloadThread(exe, SubprogramChain.ITERATIONS_PER_RUN, nanos, Long.MAX_VALUE);
            try {
                if (inKernel != null) inKernel.attach(options, selfThreads(), false);
                SampleQueue queue = queue(runner, check).batched();
                Sampler sampler = new Sampler(options, 0, queue::offer).onBatchEnd(queue::flush).preferThread(workload.tid());
                SamplerStats stats;
                try {
                    sampler.start();
                    workload.go();
                    workload.join();
                } finally {
                    stats = sampler.stop();
                    queue.finish();
                }
                // Named before the workload is closed: its JIT symbols leave the code map with it; this
                // JVM's own code from the perf map HotSpot writes now, as Profiler names it.
                Symbolizer names = new Symbolizer(code, SyntheticFrames.global());
                JvmPerfMap.Result jvm = JvmPerfMap.dumpSelf();
                if (jvm.map().isPresent()) names = names.withPerfMap(jvm.map().get());
                KernelRun kernelRun = inKernel == null ? null : inKernel.finish(names);
                return new Result(runner, fold(runner, names), stats, queue.dropped(),
                        SubprogramChain.NAME + " on the " + workloadEngine.name() + " engine, in this JVM", workload.elapsedNanos(), null,
                        queue.workerCpuNanos(), check, kernelRun);
            } finally {
                workload.cancel();
            }
        } catch (RuntimeException e) {
            runner.close();
            throw e;
        } finally {
            if (inKernel != null) inKernel.close();
        }
    }

    /**
     * How often a command's rings are all drained: a thread it starts is announced by the
     * PERF_RECORD_FORK in its creator's ring and sampled from the drain that reads it, so within
     * this time, without listing {@code /proc/PID/task} four times a second.
     */
    static final long COMMAND_DRAIN_MILLIS = 250;

    /**
     * Starts {@code command} stopped ({@link StoppedCommand}; its output goes to ours), opens one
     * event per thread of it, lets it run and samples it until it exits or {@code nanos} have passed
     * (then it is ended with SIGTERM, SIGKILL a second later), as {@code perf record -F HZ -g --
     * COMMAND} does; threads it starts later are sampled from the drain that reads their
     * PERF_RECORD_FORK (250 ms). Its
     * {@code /proc/PID/maps} give the unwinding and the names, its copied user stacks the frames.
     */
    public static Result command(SamplerOptions options, OpenObject open, String program, List<Engine> engines, List<String> command,
                                 long nanos, boolean kernel) {
        Process p = StoppedCommand.start(command);
        int pid = (int) p.pid();
        ProcessCode code = ProcessCode.ofProcess(pid, TimeUnit.MILLISECONDS.toNanos(250));
        Unwinder unwinder = new Unwinder(code);
        CallchainCheck check = new CallchainCheck(unwinder);
        SampleProgramRunner runner;
        try {
            runner = new SampleProgramRunner(open, program, engines, unwinder);
        } catch (RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
        KernelSide inKernel = kernel ? new KernelSide(open, program) : null;
        // The command is stopped with one thread: an inherited event follows every thread it starts.
        if (inKernel != null) inKernel.attach(options, List.of(pid), true);
        SampleQueue queue = queue(runner, check).batched();
        // a command starts its threads as it runs: read their fork records four times a second, not once
        Sampler sampler = new Sampler(new SamplerOptions(options.attr(), options.dataPages(), Math.min(options.drainMillis(), COMMAND_DRAIN_MILLIS),
                options.rescanMillis()), pid, queue::offer).onBatchEnd(queue::flush);
        SamplerStats stats;
        Integer status;
        long start = System.nanoTime();
        try {
            sampler.start();
            StoppedCommand.resume(p);
            start = System.nanoTime();
            status = waitFor(p, nanos);
        } catch (RuntimeException e) {
            p.destroyForcibly();
            runner.close();
            if (inKernel != null) inKernel.close();
            throw e;
        } finally {
            stats = sampler.stop();
            queue.finish();
        }
        Symbolizer names = new Symbolizer(code, SyntheticFrames.global());
        KernelRun kernelRun = inKernel == null ? null : inKernel.finish(names);
        return new Result(runner, fold(runner, names), stats, queue.dropped(),
                String.join(" ", command) + " (pid " + pid + ")", System.nanoTime() - start, status, queue.workerCpuNanos(), check, kernelRun);
    }

    /** The exit status, or null when the command was ended after {@code nanos}. */
    private static Integer waitFor(Process p, long nanos) {
        try {
            if (p.waitFor(nanos, TimeUnit.NANOSECONDS)) return p.exitValue();
            p.destroy();
            if (!p.waitFor(1, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return null;
        }
    }
}
