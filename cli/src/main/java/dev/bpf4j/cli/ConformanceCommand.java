package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.bpf4j.cli.conformance.CaseResult;
import dev.bpf4j.cli.conformance.ConformanceReport;
import dev.bpf4j.cli.conformance.ConformanceRunner;
import dev.bpf4j.cli.conformance.Outcome;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/** {@code bpf4j conformance}: runs conformance {@code .data} files and prints failures and a summary. */
final class ConformanceCommand implements Command {
    @Override public String name() { return "conformance"; }
    @Override public String summary() { return "run conformance-suite .data files (files or directories)"; }
    @Override public String usage() { return "bpf4j conformance [--engine interp|jit|jvm|kernel|all] PATH... [-j] [--perf-map]"; }

    @Override public List<Opt> options() { return List.of(Opt.engine("interp"), Opt.JSON, Opt.PERF_MAP); }

    @Override public String parameters() { return "PATH..."; }

    @Override public String parametersDescription() {
        return ".data files, or directories searched for them; - reads one .data file from standard input";
    }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        boolean json = args.flag("--json");
        // Each file's load takes the suites' fixed options, so the perf map is switched on for the process.
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        if (args.positionals().isEmpty()) throw new UsageException("missing PATH (a .data file or a directory)");
        List<Path> paths = args.positionals().stream().map(Path::of).toList();
        ConformanceRunner runner = new ConformanceRunner(EngineChoice.select(args.option("--engine").orElse("interp"), err));
        List<Path> files = ConformanceRunner.collect(paths);
        if (files.isEmpty()) throw new BadInputException("no .data files under " + args.positionals());
        ConformanceReport report = new ConformanceReport();
        JsonArray cases = new JsonArray();
        for (Path f : files) {
            CaseResult r = runner.run(f);
            report.add(r);
            if (json) {
                cases.add(json(r));
                continue;
            }
            if (r.failed()) out.println(ConformanceReport.describe(r));
            ConformanceReport.describeSkips(r).forEach(out::println);
        }
        if (json) {
            JsonObject doc = new JsonObject();
            doc.addProperty("passed", report.count(CaseResult.Status.PASSED));
            doc.addProperty("failed", report.count(CaseResult.Status.FAILED));
            doc.addProperty("skipped", report.count(CaseResult.Status.SKIPPED));
            doc.add("files", cases);
            out.println(Json.print(doc));
        } else {
            out.println(report.summary());
        }
        return report.anyFailed() ? 1 : 0;
    }

    /** One file's verdict: its status, the reason when it has one, each engine's r0, error or skip. */
    private static JsonObject json(CaseResult r) {
        JsonObject o = Json.object("file", r.file().toString());
        o.addProperty("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
        if (!r.reason().isEmpty()) o.addProperty("reason", r.reason());
        JsonArray engines = new JsonArray();
        for (Outcome e : r.outcomes()) {
            JsonObject x = Json.object("engine", e.engine());
            if (e.skipped()) x.addProperty("skipped", e.message());
            else if (e.failed()) x.addProperty("error", e.message());
            else x.addProperty("r0", e.r0());
            engines.add(x);
        }
        o.add("engines", engines);
        return o;
    }
}
