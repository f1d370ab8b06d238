package dev.bpf4j.cli;

import dev.bpf4j.cli.profile.ProfileOptions;
import dev.bpf4j.cli.profile.ProfileOutput;
import dev.bpf4j.cli.profile.ProfileReport;
import dev.bpf4j.cli.profile.ProfileSession;
import dev.bpf4j.cli.profile.SubprogramChain;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.api.Engines;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bpf4j profile --pid-self WORKLOAD}: runs a bundled workload in this JVM while sampling every
 * thread with perf_event_open (as {@code perf record -F HZ -g -p PID}), unwinds each sample with
 * bpf4j's unwinder, prints the top stacks and writes folded stacks, a pprof profile and a flame
 * graph into {@code --out}. Where perf_event_open is refused it says why and samples Java stacks instead.
 */
final class ProfileCommand implements Command {
    static final List<String> WORKLOADS = List.of("subprog-chain");
    private static final List<String> ENGINES = List.of("interp", "jit", "all", "both");
    /** With a program: Linux runs it too ({@code kernel} alone, or in {@code all}). */
    private static final List<String> PROGRAM_ENGINES = List.of("interp", "jit", "all", "both", "kernel");
    private static final List<String> SAMPLERS = List.of("perf", "java");

    @Override public String name() { return "profile"; }
    @Override public String summary() { return "sample a bundled in-process workload with perf_event_open and write folded stacks, pprof and a flame graph"; }
    @Override public String usage() {
        return "bpf4j profile --pid-self WORKLOAD [-F HZ] [--duration S] [--engine interp|jit|all] [--out DIR] [--stack-size BYTES] "
                + "[--callchain] [--threads] [--sampler perf|java] [--top N] [--perf-map]   (WORKLOAD: " + String.join(", ", WORKLOADS) + ")\n"
                + "       bpf4j profile [--object OBJ.o] [--program P] [--bpf] [--engine interp|jit|kernel|all] [-F HZ] [--duration S] [--out DIR] "
                + "[--stack-size BYTES] [--callchain] [--threads] [--top N] (--pid-self WORKLOAD | -- COMMAND [ARG...])\n"
                + "  the second form runs a perf_event program (default: the bundled profile, BCC's profile.py) on every sample, on each --engine;\n"
                + "  kernel (alone or in all) also attaches it to Linux's own perf events on the same target, where bpf() and perf_event_open are allowed";
    }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("--pid-self", "WORKLOAD", "run this bundled workload in this JVM and sample it: "
                        + String.join(", ", WORKLOADS), null),
                Opt.valued("-F", "HZ", "samples per second", "99"),
                Opt.valued("--duration", "S", "seconds to sample (with -- COMMAND: until it exits, at most 3600)", "3"),
                Opt.valued("--engine", "ENGINE", "interp, jit or all (both engines, compared); with a program also kernel (Linux runs it), "
                        + "all = interp, jit and kernel, both = interp and jit", "jit"),
                Opt.valued("--out", "DIR", "where stacks.folded, profile.pb.gz and flame.html go", "profile"),
                Opt.valued("--stack-size", "BYTES", "user stack bytes copied per sample", "16384"),
                Opt.flag("--callchain", "also ask the kernel for its CALLCHAIN and compare"),
                Opt.flag("--threads", "one flame graph root per thread (with a program: comm-tid from its per-thread counts, the bundled profile_threads.o)"),
                Opt.valued("--sampler", "SAMPLER", "perf (perf_event_open) or java (the workload thread's Java stack)", "perf"),
                Opt.valued("--top", "N", "stacks to print", "10"),
                Opt.file("--object", "OBJ.o", "a perf_event program to run on every sample (default: the bundled profile.o)"),
                Opt.valued("--program", "P", "the program of --object (default: its only program)", null),
                Opt.flag("--bpf", "run the bundled perf_event program on every sample"),
                Opt.PERF_MAP);
    }

    @Override public String parameters() { return null; }

    @Override public boolean takesCommand() { return true; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        List<String> command = args.command();
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        if (!args.positionals().isEmpty()) throw new UsageException("unexpected argument '" + args.positionals().get(0) + "'");
        boolean programMode = !command.isEmpty() || args.option("--object").isPresent() || args.option("--program").isPresent() || args.flag("--bpf");
        if (programMode) return runProgramMode(args, command, out, err);
        String workload = args.option("--pid-self").orElseThrow(() -> new UsageException("missing --pid-self WORKLOAD (one of " + String.join(", ", WORKLOADS) + ")"));
        if (!WORKLOADS.contains(workload)) throw new UsageException("unknown workload '" + workload + "' (expected one of " + String.join(", ", WORKLOADS) + ")");
        if (args.option("--engine").filter("kernel"::equals).isPresent()) {
            throw new UsageException("--engine kernel attaches a perf_event program to Linux: give --bpf, --object OBJ or -- COMMAND");
        }
        String engineChoice = choice(args, "--engine", ENGINES, "jit");
        String sampler = choice(args, "--sampler", SAMPLERS, "perf");
        int top = args.option("--top").map(ProfileCommand::parseTop).orElse(10);
        long hz = ProfileOptions.frequency(args, 99);
        ProfileSession.Settings settings = new ProfileSession.Settings(ProfileOptions.sampler(args, hz, args.flag("--callchain")),
                ProfileOptions.durationNanos(args, 3), args.flag("--threads"), sampler.equals("java"));
        Path dir = Path.of(args.option("--out").orElse("profile"));

        List<ProfileReport> reports = new ArrayList<>();
        for (Engine engine : engines(engineChoice)) {
            ProfileReport r = ProfileSession.run(engine, settings);
            reports.add(r);
            if (r.refusal() != null) {
                err.println("bpf4j profile: " + r.refusal());
                err.println("bpf4j profile: falling back to sampling the workload thread's Java stack (native and JIT frames are not visible to it)");
            }
            out.println("== " + r.engine());
            out.println(r.summary());
            if (r.accuracy() != null && r.accuracy().inProgram() > 0) out.println(r.accuracy().describe());
            if (r.accuracy() != null && r.accuracy().withCallchain() > 0) out.println(r.accuracy().describeCallchainByPlace());
            ProfileOutput.printTop(r.stacks(), top, out);
        }
        for (Path p : ProfileOutput.write(dir, reports, "bpf4j profile " + workload + " (" + SubprogramChain.NAME + ", " + engineChoice + ", " + hz + " Hz)",
                1_000_000_000L / hz)) {
            out.println("wrote " + p);
        }
        return 0;
    }

    /** A perf_event program on every sample ({@link ProfileProgramMode}). */
    private static int runProgramMode(Args args, List<String> command, PrintStream out, PrintStream err) {
        if (!command.isEmpty() && args.option("--pid-self").isPresent()) throw new UsageException("give either --pid-self WORKLOAD or -- COMMAND, not both");
        if (command.isEmpty()) {
            String workload = args.option("--pid-self").orElseThrow(() -> new UsageException("missing --pid-self WORKLOAD or -- COMMAND"));
            if (!WORKLOADS.contains(workload)) throw new UsageException("unknown workload '" + workload + "' (expected one of " + String.join(", ", WORKLOADS) + ")");
        }
        if (args.option("--sampler").isPresent()) throw new UsageException("--sampler is not available with a perf_event program (it needs perf_event_open)");
        String engineChoice = choice(args, "--engine", PROGRAM_ENGINES, "jit");
        int top = args.option("--top").map(ProfileCommand::parseTop).orElse(10);
        long hz = ProfileOptions.frequency(args, 99);
        SamplerOptions sampler = ProfileOptions.programSampler(args, hz, args.flag("--callchain"));
        Path dir = Path.of(args.option("--out").orElse("profile"));
        boolean kernel = engineChoice.equals("kernel") || engineChoice.equals("all");
        List<Engine> bpf4jEngines = engineChoice.equals("kernel") ? List.of() : engines(engineChoice);
        return ProfileProgramMode.run(args, sampler, bpf4jEngines, kernel, command, ProfileOptions.durationNanos(args, command.isEmpty() ? 3 : 3600),
                hz, top, dir, out, err);
    }

    static List<Engine> engines(String choice) {
        List<Engine> out = new ArrayList<>();
        for (String name : choice.equals("both") || choice.equals("all") ? List.of("interp", "jit") : List.of(choice)) {
            out.add(Engines.available().stream().filter(e -> e.name().equals(name)).findFirst()
                    .orElseThrow(() -> new EngineUnavailableException("the '" + name + "' engine is not available in this build")));
        }
        return out;
    }

    private static String choice(Args args, String option, List<String> choices, String dflt) {
        String v = args.option(option).orElse(dflt);
        List<String> shown = choices.stream().filter(c -> !c.equals("both")).toList();
        if (!choices.contains(v)) throw new UsageException(option + " '" + v + "' (expected one of " + String.join(", ", shown) + ")");
        // with a program, both (interp + jit) is how to leave Linux out of all
        if (v.equals("both") && choices != PROGRAM_ENGINES) System.err.println("bpf4j profile: " + option + " both is deprecated: use " + option + " all");
        return v;
    }

    static int parseTop(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) return n;
        } catch (NumberFormatException ignored) {
            // falls through to the usage error
        }
        throw new UsageException("--top " + v + ": expected a count >= 0");
    }
}
