package dev.bpf4j.cli;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.Engine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code bpf4j run OBJ.o}: loads an object through the {@code dev.bpf4j.api} layer, test-runs one
 * program like {@code BPF_PROG_TEST_RUN} and prints {@code retval}, {@code data_out} / {@code ctx_out}
 * where the program type returns them, and with {@code --dump-maps} every map as bpftool's JSON.
 * {@code --engine all} runs each engine on a freshly loaded object and reports the differences.
 */
final class ObjectRun {
    static final String USAGE = "bpf4j run OBJ.o [--program NAME] [--engine interp|jit|all] [--data-in FILE] [--ctx-in FILE]"
            + " [--repeat N] [--dump-maps]";

    private ObjectRun() {}

    static int run(Path file, List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of("--program", "--engine", "--data-in", "--ctx-in", "--repeat"), Set.of("--dump-maps"));
        boolean dumpMaps = args.flag("--dump-maps");
        String engine = args.option("--engine").orElse("interp");
        RunOptions options = RunOptions.defaults();
        if (args.option("--data-in").isPresent()) options = options.withDataIn(read(args.option("--data-in").get()));
        if (args.option("--ctx-in").isPresent()) options = options.withCtxIn(read(args.option("--ctx-in").get()));
        if (args.option("--repeat").isPresent()) options = options.withRepeat(repeat(args.option("--repeat").get()));
        OpenObject open = BpfObject.open(file);
        String program = args.option("--program").orElseGet(() -> onlyProgram(open));
        List<Engine> engines = select(engine, err);
        if (engines.size() == 1) {
            for (String line : runOn(open, program, engines.get(0), options, dumpMaps)) out.println(line);
            return 0;
        }
        Map<String, List<String>> results = new LinkedHashMap<>();
        int status = 0;
        for (Engine e : engines) {
            List<String> lines;
            try {
                lines = runOn(open, program, e, options, dumpMaps);
            } catch (BpfException | IllegalArgumentException ex) {
                lines = List.of("error: " + ex.getMessage());
                status = 1;
            }
            results.put(e.name(), lines);
            out.println("== " + e.name());
            for (String line : lines) out.println(line);
        }
        List<String> diffs = differences(results);
        if (!diffs.isEmpty()) {
            out.println("== differences");
            diffs.forEach(out::println);
            status = 1;
        }
        return status;
    }

    private static List<String> runOn(OpenObject open, String program, Engine engine, RunOptions options, boolean dumpMaps) {
        List<String> lines = new ArrayList<>();
        try (BpfObject obj = open.load(ObjectLoadOptions.engine(engine))) {
            RunResult r = obj.program(program).run(options);
            HexFormat hex = HexFormat.of();
            lines.add("retval: " + r.retval());
            if (r.dataOut() != null) lines.add("data_out: " + hex.formatHex(r.dataOut()));
            if (r.ctxOut() != null) lines.add("ctx_out: " + hex.formatHex(r.ctxOut()));
            if (dumpMaps) for (BpfMap m : obj.maps()) lines.add(MapDump.json(m));
        }
        return lines;
    }

    /** Line-by-line differences of every engine against the first. */
    private static List<String> differences(Map<String, List<String>> results) {
        List<String> out = new ArrayList<>();
        var it = results.entrySet().iterator();
        var ref = it.next();
        while (it.hasNext()) {
            var other = it.next();
            int n = Math.max(ref.getValue().size(), other.getValue().size());
            for (int i = 0; i < n; i++) {
                String a = i < ref.getValue().size() ? ref.getValue().get(i) : "(nothing)";
                String b = i < other.getValue().size() ? other.getValue().get(i) : "(nothing)";
                if (!a.equals(b)) out.add(ref.getKey() + ": " + a + "\n" + other.getKey() + ": " + b);
            }
        }
        return out;
    }

    private static List<Engine> select(String choice, PrintStream err) {
        if (!choice.equals("all")) {
            try {
                return List.of(dev.bpf4j.api.Engines.byName(choice));
            } catch (java.util.NoSuchElementException e) {
                throw new CliException(e.getMessage());
            }
        }
        List<Engine> out = new ArrayList<>();
        for (Engine e : dev.bpf4j.api.Engines.available()) {
            // The kernel engine runs raw programs as BPF_PROG_TYPE_SYSCALL; it cannot load an object's maps yet.
            if (e.name().equals("kernel")) err.println("kernel: skipped (objects with maps are not loaded into the kernel yet)");
            else out.add(e);
        }
        return out;
    }

    static String onlyProgram(OpenObject open) {
        List<String> names = open.spec().programs().stream().filter(ProgramSpec::autoload).map(ProgramSpec::name).toList();
        if (names.size() == 1) return names.get(0);
        throw new UsageException("the object has " + names.size() + " programs, choose one with --program: " + String.join(", ", names));
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
            return Files.readAllBytes(Path.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }
}
