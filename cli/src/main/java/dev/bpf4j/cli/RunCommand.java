package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.conformance.MemoryBlock;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** {@code bpf4j run}: runs one program with the conformance conventions and prints r0. */
final class RunCommand implements Command {
    @Override public String name() { return "run"; }
    @Override public String summary() { return "run a .data, .bin or .s program and print r0, or test-run a program of an ELF object (OBJ.o)"; }
    @Override public String usage() { return "bpf4j run FILE [--engine interp|jit|jvm|kernel|all] [--mem HEXFILE] [-j] [--perf-map]\n       " + ObjectRun.USAGE; }

    @Override public List<Opt> options() {
        return List.of(Opt.engine("interp"),
                Opt.file("--mem", "HEXFILE", "FILE: the memory block r1 points at, as hex bytes (default: the .data file's -- mem)"),
                Opt.valued("--program", "NAME", "OBJ.o: the program to run (default: the object's only program)", null),
                Opt.file("--data-in", "FILE", "OBJ.o: the packet (BPF_PROG_TEST_RUN data_in)"),
                Opt.file("--ctx-in", "FILE", "OBJ.o: the context (ctx_in)"),
                Opt.valued("--repeat", "N", "OBJ.o: run N times and print the average duration", "1"),
                Opt.flag("--dump-maps", "OBJ.o: print every map as bpftool map dump -j does"),
                Opt.JSON, Opt.PERF_MAP);
    }

    @Override public String parameters() { return "FILE"; }

    @Override public String parametersDescription() {
        return "a conformance .data file, raw bytecode (.bin), assembly (.s) or a clang -target bpf object (.o); - for standard input";
    }

    /** Options of one mode only: given in the other, a usage error. */
    private static final List<String> OBJECT_ONLY = List.of("--program", "--data-in", "--ctx-in", "--repeat");

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        Path file = Path.of(args.single("FILE"));
        // An ELF object goes through the object API (maps, program types, contexts): ObjectRun.
        if (ObjectDisasm.isElf(file)) {
            if (args.option("--mem").isPresent()) throw new UsageException("--mem is for FILE programs, not objects: use --data-in/--ctx-in");
            return ObjectRun.run(file, args, out, err);
        }
        for (String o : OBJECT_ONLY) {
            if (args.option(o).isPresent()) throw new UsageException(o + " is for objects (OBJ.o), not " + file);
        }
        if (args.flag("--dump-maps")) throw new UsageException("--dump-maps is for objects (OBJ.o), not " + file);
        boolean json = args.flag("--json");
        boolean perfMap = PerfMapFlag.given(args, err);
        List<Engine> engines = EngineChoice.select(args.option("--engine").orElse("interp"), err);
        ProgramInput input = ProgramInput.load(file);
        if (args.option("--mem").isPresent()) input = input.withMem(ProgramInput.loadMem(Path.of(args.option("--mem").get())));
        LoadOptions options = ConformanceHelpers.loadOptions(input.mem() != null).withPerfMap(perfMap);
        if (engines.size() == 1) {
            long r0 = runOnce(input, engines.get(0), options);
            out.println(json ? Json.print(result(engines.get(0).name(), r0)) : format(r0));
            return 0;
        }
        // Several engines: one line each, and a non-zero status when any fails or they disagree.
        int status = 0;
        Set<String> outcomes = new HashSet<>();
        JsonArray runs = new JsonArray();
        for (Engine engine : engines) {
            try {
                long r0 = runOnce(input, engine, options);
                if (!json) out.println(engine.name() + ": " + format(r0));
                runs.add(result(engine.name(), r0));
                outcomes.add(format(r0));
            } catch (RuntimeException e) {
                String skip = KernelSkip.reason(e);
                if (skip != null) {
                    // no kernel verdict (verifier refusal, helper not comparable): not a disagreement
                    err.println(engine.name() + ": skipped (" + skip + ")");
                    JsonObject o = Json.object("engine", engine.name());
                    o.addProperty("skipped", skip);
                    runs.add(o);
                    continue;
                }
                err.println(engine.name() + ": " + e.getMessage());
                JsonObject o = Json.object("engine", engine.name());
                o.addProperty("error", e.getMessage());
                runs.add(o);
                outcomes.add("error " + e.getClass().getName());
                status = 1;
            }
        }
        if (outcomes.size() > 1) {
            err.println("engines disagree");
            status = 1;
        }
        if (json) {
            JsonObject doc = new JsonObject();
            doc.add("runs", runs);
            doc.addProperty("agree", outcomes.size() <= 1);
            out.println(Json.print(doc));
        }
        return status;
    }

    private static JsonObject result(String engine, long r0) {
        JsonObject o = Json.object("engine", engine);
        o.addProperty("r0", r0);
        o.addProperty("r0_hex", String.format("0x%x", r0));
        return o;
    }

    private static long runOnce(ProgramInput input, Engine engine, LoadOptions options) {
        try (MemoryBlock mem = MemoryBlock.of(input.mem());
             Executable exe = Bpf.load(input.program(), engine, options)) {
            return exe.run(mem.context());
        }
    }

    private static String format(long r0) { return String.format("r0 = %d (0x%x)", r0, r0); }
}
