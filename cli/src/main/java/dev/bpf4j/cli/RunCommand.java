package dev.bpf4j.cli;

import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.conformance.MemoryBlock;
import dev.bpf4j.runtime.Bpf;
import dev.bpf4j.runtime.Engine;
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
    @Override public String usage() { return "bpf4j run FILE [--engine interp|jit|jvm|kernel|all] [--mem HEXFILE] [--perf-map]\n       " + ObjectRun.USAGE; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        // An ELF object goes through the object API (maps, program types, contexts): ObjectRun.
        if (!argv.isEmpty() && !argv.get(0).startsWith("-") && ObjectDisasm.isElf(Path.of(argv.get(0)))) {
            return ObjectRun.run(Path.of(argv.get(0)), argv.subList(1, argv.size()), out, err);
        }
        Args args = new Args(argv, Set.of("--engine", "--mem"), Set.of(PerfMapFlag.NAME));
        boolean perfMap = PerfMapFlag.given(args, err);
        Path file = Path.of(args.single("FILE"));
        List<Engine> engines = Engines.select(args.option("--engine").orElse("interp"), err);
        ProgramInput input = ProgramInput.load(file);
        if (args.option("--mem").isPresent()) input = input.withMem(ProgramInput.loadMem(Path.of(args.option("--mem").get())));
        LoadOptions options = ConformanceHelpers.loadOptions(input.mem() != null).withPerfMap(perfMap);
        if (engines.size() == 1) {
            out.println(format(runOnce(input, engines.get(0), options)));
            return 0;
        }
        // Several engines: one line each, and a non-zero status when any fails or they disagree.
        int status = 0;
        Set<String> outcomes = new HashSet<>();
        for (Engine engine : engines) {
            try {
                long r0 = runOnce(input, engine, options);
                out.println(engine.name() + ": " + format(r0));
                outcomes.add(format(r0));
            } catch (RuntimeException e) {
                String skip = KernelSkip.reason(e);
                if (skip != null) {
                    // no kernel verdict (verifier refusal, helper not comparable): not a disagreement
                    err.println(engine.name() + ": skipped (" + skip + ")");
                    continue;
                }
                err.println(engine.name() + ": " + e.getMessage());
                outcomes.add("error " + e.getClass().getName());
                status = 1;
            }
        }
        if (outcomes.size() > 1) {
            err.println("engines disagree");
            status = 1;
        }
        return status;
    }

    private static long runOnce(ProgramInput input, Engine engine, LoadOptions options) {
        try (MemoryBlock mem = MemoryBlock.of(input.mem());
             Executable exe = Bpf.load(input.program(), engine, options)) {
            return exe.run(mem.context());
        }
    }

    private static String format(long r0) { return String.format("r0 = %d (0x%x)", r0, r0); }
}
