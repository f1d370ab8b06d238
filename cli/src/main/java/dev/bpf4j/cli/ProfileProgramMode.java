package dev.bpf4j.cli;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.cli.profile.MapStacks;
import dev.bpf4j.cli.profile.ProfileObject;
import dev.bpf4j.cli.profile.ProfileOutput;
import dev.bpf4j.cli.profile.ProfileReport;
import dev.bpf4j.cli.profile.ProgramProfile;
import dev.bpf4j.cli.profile.SampleProgramRunner;
import dev.bpf4j.cli.profile.StoppedCommand;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import dev.bpf4j.runtime.BpfNotFoundException;

/**
 * {@code bpf4j profile} with a perf_event program ({@code --object OBJ [--program P]}, {@code --bpf}
 * for the bundled one, always for {@code -- COMMAND}): each sample runs the program on every chosen
 * engine, and the profile is read from each engine's maps — folded stacks with {@code [unknown]}
 * frames and a {@code [missed stack]} bucket, as BCC's profile.py prints them. With two engines it
 * ends by saying whether they agree on stack ids, frames and every map (exit 1 when not).
 */
final class ProfileProgramMode {
    private ProfileProgramMode() {}

    /** The object and program: the user's ({@code --object}, {@code --program}) or the bundled profile. */
    static OpenObject open(Args args) {
        boolean threads = args.flag("--threads");
        if (args.option("--object").isEmpty()) return threads ? ProfileObject.openThreads() : ProfileObject.open();
        Path file = Path.of(args.option("--object").get());
        if (!Files.isRegularFile(file)) throw new BadInputException("no such object: " + file);
        OpenObject open;
        try {
            open = BpfObject.open(file);
        } catch (BpfLoadException e) {
            throw new BadInputException(e.getMessage());
        }
        // The split per thread is the program's, as in BCC: its maps must keep the thread.
        if (threads && !ProfileObject.countsPerThread(open)) {
            throw new BadInputException("--threads: object '" + file + "' has no counting map keyed per thread (a hash map to u64 keyed by "
                    + "struct { u32 tgid; u32 pid; s32 user_stack_id; char comm[16]; }, as the bundled profile_threads.c)");
        }
        return open;
    }

    static String program(Args args, OpenObject open) {
        String name = args.option("--program").orElseGet(() -> args.option("--object").isPresent() ? ObjectRun.onlyProgram(open) : ProfileObject.PROGRAM);
        ProgramType type;
        try {
            type = open.spec().program(name).type();
        } catch (BpfNotFoundException | IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        if (type != ProgramType.PERF_EVENT) {
            throw new BadInputException("program '" + name + "' is " + type + ": profile runs perf_event programs (SEC(\"perf_event\"), ctx = struct bpf_perf_event_data *)");
        }
        return name;
    }

    /**
     * @param engines the bpf4j engines that run the program on bpf4j's samples (may be empty)
     * @param kernel also attach it to Linux's own perf events on the same target ({@code --engine kernel} / {@code all})
     */
    /**
     * Prints Linux's copy: its stacks, and how its stack ids compare with the first bpf4j engine's
     * (its own samples, so the counts differ; an id both stored must hold the same ips). Null when skipped.
     */
    private static ProfileReport kernel(ProgramProfile.Result r, String program, SampleProgramRunner runner, int top, PrintStream out) {
        ProgramProfile.KernelRun k = r.kernel();
        if (k.stacks() == null) {
            out.println("== kernel: skipped: " + k.skipped());
            return null;
        }
        MapStacks stacks = k.stacks();
        out.printf("== kernel: program %s attached to Linux's own cpu-clock events on the same target (its own samples, not bpf4j's)%n", program);
        out.printf("%d samples counted, %d distinct stack ids%s, %d in %s%n", stacks.total(), stacks.ips().size(),
                stacks.perThread() ? " in " + stacks.byThread().keySet().stream().map(MapStacks.ThreadStack::root).distinct().count() + " threads" : "",
                stacks.missed(), MapStacks.MISSED);
        ProfileOutput.printTop(k.folded(), top, out);
        if (!runner.copies().isEmpty()) {
            SampleProgramRunner.EngineCopy first = runner.copies().get(0);
            MapStacks ours = first.stacks().orElse(null);
            if (ours != null) {
                long shared = 0, same = 0, kernelIn = 0, oursIn = 0;
                for (var e : stacks.ips().entrySet()) {
                    List<Long> o = ours.ips().get(e.getKey());
                    if (o == null) continue;
                    shared++;
                    if (o.equals(e.getValue())) same++;
                    kernelIn += stacks.counts().getOrDefault(e.getKey(), 0L);
                    oursIn += ours.counts().getOrDefault(e.getKey(), 0L);
                }
                out.printf("kernel vs %s: %d stack ids stored by both, %d with identical ips; they hold %d of the kernel's %d samples and %d of %s's %d%n",
                        first.engine(), shared, same, kernelIn, stacks.total(), oursIn, first.engine(), ours.total());
            }
        }
        return new ProfileReport("kernel", List.of(), k.folded(), true, null, r.stats(), null, 0, 0, r.elapsedNanos());
    }

    static int run(Args args, SamplerOptions sampler, List<Engine> engines, boolean kernel, List<String> command, long nanos, long hz, int top,
                   Path dir, PrintStream out, PrintStream err) {
        if (!command.isEmpty() && StoppedCommand.resolve(command.get(0)).isEmpty()) {
            throw new BadInputException("no such command: " + command.get(0));
        }
        OpenObject open = open(args);
        String program = program(args, open);
        ProgramProfile.Result r;
        try {
            r = command.isEmpty()
                    ? ProgramProfile.self(sampler, open, program, engines, ProfileCommand.engines("jit").get(0), nanos, kernel)
                    : ProgramProfile.command(sampler, open, program, engines, command, nanos, kernel);
        } catch (SamplingRefusedException refused) {
            err.println("bpf4j profile: " + refused.getMessage());
            return 1;
        }
        try (SampleProgramRunner runner = r.runner()) {
            out.printf("profiled %s for %.2f s%s: %d samples (perf_event_open cpu-clock, %d threads), %d lost%s%n", r.target(), r.elapsedNanos() / 1e9,
                    r.exitStatus() == null ? (command.isEmpty() ? "" : ", ended at --duration") : ", exit status " + r.exitStatus(),
                    r.stats().samples(), r.stats().threads(), r.stats().lost(), r.dropped() > 0 ? ", " + r.dropped() + " dropped (queue full)" : "");
            out.println(r.overhead());
            if (r.callchain().compared() > 0) out.println(r.callchain().describe());
            int status = 0;
            List<ProfileReport> reports = new ArrayList<>();
            for (SampleProgramRunner.EngineCopy c : runner.copies()) {
                out.println("== " + c.engine() + ": program " + program + " ran " + c.program().runs() + " times, " + c.program().errors() + " errors");
                c.program().lastError().ifPresent(e -> err.println(c.engine() + ": last program error: " + e.getMessage()));
                if (c.program().errors() > 0) status = 1;
                MapStacks stacks = c.stacks().orElse(null);
                if (stacks == null) {
                    // Not a stack map + counting map: print what it has.
                    c.mapDumps().forEach(out::println);
                    continue;
                }
                FoldedStacks folded = r.folded().get(c.engine());
                out.printf("%d samples counted, %d distinct stack ids%s, %d in %s%n", stacks.total(), stacks.ips().size(),
                        stacks.perThread() ? " in " + stacks.byThread().keySet().stream().map(MapStacks.ThreadStack::root).distinct().count() + " threads" : "",
                        stacks.missed(), MapStacks.MISSED);
                ProfileOutput.printTop(folded, top, out);
                reports.add(new ProfileReport(c.engine(), List.of(), folded, true, null, r.stats(), null, r.dropped(), 0, r.elapsedNanos()));
            }
            if (r.kernel() != null) {
                ProfileReport k = kernel(r, program, runner, top, out);
                if (k != null) reports.add(k);
            }
            if (runner.copies().size() > 1) {
                List<String> diffs = runner.differences();
                if (diffs.isEmpty()) {
                    out.println("== engines agree: same stack ids, frames and counts, same maps, on the same " + runner.copies().get(0).program().runs() + " samples");
                } else {
                    out.println("== engines differ:");
                    diffs.forEach(out::println);
                    status = 1;
                }
            }
            if (!reports.isEmpty()) {
                String title = "bpf4j profile: " + program + " on " + r.target() + ", " + hz + " Hz";
                for (Path p : ProfileOutput.write(dir, reports, title, 1_000_000_000L / hz)) out.println("wrote " + p);
            }
            return status;
        }
    }
}
