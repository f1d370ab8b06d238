package dev.bpf4j.cli;

import dev.bpf4j.cli.profile.EngineAgreement;
import dev.bpf4j.cli.profile.NativeChainProbe;
import dev.bpf4j.cli.profile.ProfileOptions;
import dev.bpf4j.cli.profile.ProfileOutput;
import dev.bpf4j.cli.profile.ProfileReport;
import dev.bpf4j.cli.profile.ProfileSession;
import dev.bpf4j.cli.profile.SubprogramChain;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bpf4j demo}: what bpf4j is for, in one command. JIT-compiles a program whose main calls a
 * 3-level chain of subprograms, runs it from Java in a loop, samples this JVM at 99 Hz with
 * perf_event_open, unwinds every sample with bpf4j's own unwinder (the JIT's unwind rows, frame
 * pointers, the copied user stack), prints the top stacks and writes a flame graph. The same samples
 * run the bundled perf_event program on the interpreter and the JIT ({@link EngineAgreement}): it says
 * whether they agree (exit 1 when not). Where the kernel refuses perf_event_open it says why and
 * samples the Java stack instead.
 */
final class DemoCommand implements Command {
    private static final String[] ROLES = {"main", "sub1", "sub2", "sub3"};

    @Override public String name() { return "demo"; }
    @Override public String summary() { return "profile a JIT-compiled subprogram chain in this JVM at 99 Hz and write a flame graph"; }
    @Override public String usage() { return "bpf4j demo [--out DIR] [-F HZ] [--duration S] [--top N] [--perf-map]"; }

    /** The native library's path into the chain; null (said why) where the probe cannot be attached. */
    private static NativeChainProbe attachNativeProbe(PrintStream out, PrintStream err) {
        try {
            NativeChainProbe p = NativeChainProbe.attach(ProfileCommand.engines("jit").get(0));
            out.printf("and the same chain as %s, a native probe on %s, which Java calls through %s of the bundled native library;%n",
                    SubprogramChain.PROBE_NAME, NativeChainProbe.PROBED_SYMBOL, NativeChainProbe.WORK_SYMBOL);
            return p;
        } catch (RuntimeException e) {
            err.println("bpf4j demo: cannot attach the native probe (" + e.getMessage() + "): profiling the Java path only");
            return null;
        }
    }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("--out", "DIR", "where stacks.folded, profile.pb.gz and flame.html go", "demo"),
                Opt.valued("-F", "HZ", "samples per second", "99"),
                Opt.valued("--duration", "S", "seconds to sample", "3"),
                Opt.valued("--top", "N", "stacks to print", "8"),
                Opt.PERF_MAP);
    }

    @Override public String parameters() { return null; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        // --perf-map: Linux perf, sampling this JVM meanwhile, names the JIT code too.
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        if (!args.positionals().isEmpty()) throw new UsageException("unexpected argument '" + args.positionals().get(0) + "'");
        long hz = ProfileOptions.frequency(args, 99);
        long nanos = ProfileOptions.durationNanos(args, 3);
        int top = args.option("--top").map(ProfileCommand::parseTop).orElse(8);
        Path dir = Path.of(args.option("--out").orElse("demo"));
        out.printf("bpf4j demo: the JIT runs %s (main -> sub1 -> sub2 -> sub3, BPF-to-BPF calls) from Java in a loop,%n", SubprogramChain.NAME);
        NativeChainProbe nativeProbe = attachNativeProbe(out, err);
        out.printf("sampling every thread of this JVM at %d Hz for %.1f s with perf_event_open, unwinding with bpf4j's unwinder%n", hz, nanos / 1e9);

        // The same samples also run the bundled perf_event program on both engines, which must agree.
        try (EngineAgreement engines = new EngineAgreement(); NativeChainProbe probe = nativeProbe) {
            ProfileReport r = ProfileSession.run(ProfileCommand.engines("jit").get(0),
                    new ProfileSession.Settings(ProfileOptions.programSampler(args, hz, true), nanos, false, false, engines), probe);
            if (r.refusal() != null) {
                err.println("bpf4j demo: " + r.refusal());
                err.println("bpf4j demo: falling back to sampling the workload thread's Java stack: JIT frames are invisible to it, so the flame graph"
                        + " ends at the Java call into the JIT; allow perf_event_open (see above) to see them");
            }
            out.println(r.summary());
            for (int i = 0; i < r.chain().size(); i++) out.printf("  %-4s = %s%n", ROLES[i], r.chain().get(i));
            out.println("top stacks (root ... leaf):");
            ProfileOutput.printTop(r.stacks(), top, out);
            if (probe != null) {
                long through = NativeChainProbe.samplesThroughProbe(r.stacks()), total = r.stacks().total();
                out.printf("through the native probe: %d of %d samples (%.1f%%) went Java -> %s -> %s -> %s -> %s; %d probe hits, %d errors%n",
                        through, total, total == 0 ? 0.0 : 100.0 * through / total, NativeChainProbe.WORK_SYMBOL, NativeChainProbe.PROBED_SYMBOL,
                        NativeChainProbe.trampolineFrame(), SubprogramChain.PROBE_NAME, probe.hits(), probe.errors());
            }
            if (r.accuracy() != null) {
                out.println(r.accuracy().describe());
                if (r.accuracy().withCallchain() > 0) out.println(r.accuracy().describeCallchainByPlace());
            }
            if (r.probeAccuracy() != null) {
                out.println(r.probeAccuracy().describe("the probe's copy of the chain (trampoline, " + SubprogramChain.PROBE_NAME + ", its subprograms)"));
                if (r.probeAccuracy().withCallchain() > 0) out.println(r.probeAccuracy().describeCallchainByPlace());
            }
            if (engines.ran()) engines.describe(r.stacks(), 3).forEach(out::println);
            List<Path> written = ProfileOutput.write(dir, List.of(r), "bpf4j demo: " + SubprogramChain.NAME + " on the JIT, " + hz + " Hz", 1_000_000_000L / hz);
            for (Path p : written) out.println("wrote " + p);
            return !engines.ran() || engines.agree() ? 0 : 1;
        }
    }
}
