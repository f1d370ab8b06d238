package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.kernel.KernelEngine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bpf4j run OBJ.o}: loads an object through the {@code dev.bpf4j.api} layer, test-runs one
 * program like {@code BPF_PROG_TEST_RUN} and prints {@code retval}, {@code data_out} / {@code ctx_out}
 * where the program type returns them, and with {@code --dump-maps} every map as bpftool's JSON.
 * {@code --engine all} runs each engine on a freshly loaded object and reports the differences; the
 * kernel engine loads the object into Linux ({@link KernelObjectRun}) and is skipped, with the reason,
 * where bpf() is refused, its verifier refuses the program or the kernel has no test run for its type.
 */
final class ObjectRun {
    static final String USAGE = "bpf4j run OBJ.o [--program NAME] [--engine interp|jit|jvm|kernel|all] [--data-in FILE] [--ctx-in FILE]"
            + " [--repeat N] [--dump-maps] [-j] [--perf-map]";

    private ObjectRun() {}

    static int run(Path file, Args args, PrintStream out, PrintStream err) {
        boolean json = args.flag("--json");
        // --perf-map: every JIT function of the object is named in /tmp/perf-PID.map as it loads.
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        boolean dumpMaps = args.flag("--dump-maps");
        String engine = args.option("--engine").orElse("interp");
        RunOptions options = RunOptions.defaults();
        if (args.option("--data-in").isPresent()) options = options.withDataIn(read(args.option("--data-in").get()));
        if (args.option("--ctx-in").isPresent()) options = options.withCtxIn(read(args.option("--ctx-in").get()));
        if (args.option("--repeat").isPresent()) options = options.withRepeat(repeat(args.option("--repeat").get()));
        OpenObject open = BpfObject.open(file);
        String program = args.option("--program").orElseGet(() -> onlyProgram(open));
        requireProgram(open, file, program);
        List<Engine> engines = EngineChoice.select(engine, err);
        if (engines.size() == 1) {
            EngineRun r = runOn(open, program, engines.get(0), options, dumpMaps);
            if (json) out.println(Json.print(document(program, engines.get(0).name(), r)));
            else for (String line : r.lines()) out.println(line);
            return 0;
        }
        Map<String, EngineRun> results = new LinkedHashMap<>();
        int status = 0;
        for (Engine e : engines) {
            EngineRun r;
            try {
                r = runOn(open, program, e, options, dumpMaps);
            } catch (BpfException | IllegalArgumentException ex) {
                String skip = e.name().equals(KernelEngine.NAME) ? KernelSkip.reason(ex) : null;
                if (skip != null) {
                    // no kernel verdict (verifier refusal, no test run for the type): not a difference
                    err.println("kernel: skipped (" + skip + ")");
                    continue;
                }
                r = EngineRun.error(ex);
                status = 1;
            }
            results.put(e.name(), r);
            if (json) continue;
            out.println("== " + e.name());
            for (String line : r.lines()) out.println(line);
        }
        List<String> diffs = differences(results);
        if (!diffs.isEmpty()) status = 1;
        if (json) {
            JsonObject doc = Json.object("program", program);
            JsonArray runs = new JsonArray();
            results.forEach((name, r) -> runs.add(document(program, name, r)));
            doc.add("runs", runs);
            JsonArray d = new JsonArray();
            diffs.forEach(d::add);
            doc.add("differences", d);
            out.println(Json.print(doc));
        } else if (!diffs.isEmpty()) {
            out.println("== differences");
            diffs.forEach(out::println);
        }
        return status;
    }

    /** One engine's run as JSON: the program, the engine, then what {@link EngineRun#json()} holds. */
    private static JsonObject document(String program, String engine, EngineRun r) {
        JsonObject o = Json.object("program", program);
        o.addProperty("engine", engine);
        r.json().entrySet().forEach(e -> o.add(e.getKey(), e.getValue()));
        return o;
    }

    private static EngineRun runOn(OpenObject open, String program, Engine engine, RunOptions options, boolean dumpMaps) {
        if (engine.name().equals(KernelEngine.NAME)) return KernelObjectRun.run(open.spec(), program, options, dumpMaps);
        EngineRun.Builder b = new EngineRun.Builder();
        try (BpfObject obj = open.load(ObjectLoadOptions.engine(engine))) {
            b.result(obj.program(program).run(options), options.repeat() > 1);
            if (dumpMaps) for (BpfMap m : obj.maps()) b.map(m.name(), m.type().isPercpu(), MapDump.entries(m), obj.mapBtf(m.name()));
        }
        return b.build();
    }

    /** Line-by-line differences of every engine against the first (compared as {@link EngineRun#compared()}). */
    private static List<String> differences(Map<String, EngineRun> results) {
        List<String> out = new ArrayList<>();
        var it = results.entrySet().iterator();
        var ref = it.next();
        while (it.hasNext()) {
            var other = it.next();
            List<String> a = ref.getValue().compared(), b = other.getValue().compared();
            for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
                String x = i < a.size() ? a.get(i) : "(nothing)";
                String y = i < b.size() ? b.get(i) : "(nothing)";
                if (!x.equals(y)) out.add(ref.getKey() + ": " + x + "\n" + other.getKey() + ": " + y);
            }
        }
        return out;
    }

    static String onlyProgram(OpenObject open) {
        List<String> names = open.spec().programs().stream().filter(ProgramSpec::autoload).map(ProgramSpec::name).toList();
        if (names.size() == 1) return names.get(0);
        throw new UsageException("the object has " + names.size() + " programs, choose one with --program: " + String.join(", ", names));
    }

    /** The program must be in the object; one that is not loaded by default ({@code SEC("?xdp")}) is loaded when named. */
    static void requireProgram(OpenObject open, Path file, String program) {
        if (open.spec().findProgram(program).isEmpty()) {
            List<String> names = open.spec().programs().stream().map(ProgramSpec::name).toList();
            throw new BadInputException(file + ": no program '" + program + "' in the object (its programs: "
                    + (names.isEmpty() ? "none" : String.join(", ", names)) + ")");
        }
        open.program(program, p -> p.withAutoload(true));
    }

    private static int repeat(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("--repeat needs a positive integer, not '" + v + "'");
    }

    private static byte[] read(String path) {
        try {
            return Files.readAllBytes(ProgramInput.requireFile(Path.of(path)));
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": cannot read: " + e.getMessage(), e);
        }
    }
}
