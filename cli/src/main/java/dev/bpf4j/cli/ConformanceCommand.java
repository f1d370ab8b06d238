package dev.bpf4j.cli;

import dev.bpf4j.cli.conformance.CaseResult;
import dev.bpf4j.cli.conformance.ConformanceReport;
import dev.bpf4j.cli.conformance.ConformanceRunner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code bpf4j conformance}: runs conformance {@code .data} files and prints failures and a summary. */
final class ConformanceCommand implements Command {
    @Override public String name() { return "conformance"; }
    @Override public String summary() { return "run conformance-suite .data files (files or directories)"; }
    @Override public String usage() { return "bpf4j conformance [--engine interp|jit|jvm|kernel|all] PATH... [--perf-map]"; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of("--engine"), Set.of(PerfMapFlag.NAME));
        // Each file's load takes the suites' fixed options, so the perf map is switched on for the process.
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        if (args.positionals().isEmpty()) throw new UsageException("missing PATH (a .data file or a directory)");
        ConformanceRunner runner = new ConformanceRunner(Engines.select(args.option("--engine").orElse("interp"), err));
        List<Path> files = ConformanceRunner.collect(args.positionals().stream().map(Path::of).toList());
        if (files.isEmpty()) throw new CliException("no .data files under " + args.positionals());
        ConformanceReport report = new ConformanceReport();
        for (Path f : files) {
            CaseResult r = runner.run(f);
            report.add(r);
            if (r.failed()) out.println(ConformanceReport.describe(r));
            ConformanceReport.describeSkips(r).forEach(out::println);
        }
        out.println(report.summary());
        return report.anyFailed() ? 1 : 0;
    }
}
