package dev.bpf4j.cli;

import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.conformance.MemoryBlock;
import dev.bpf4j.runtime.Bpf;
import dev.bpf4j.runtime.Engine;
import dev.bpf4j.runtime.Executable;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** {@code bpf4j run}: runs one program with the conformance conventions and prints r0. */
final class RunCommand implements Command {
    @Override public String name() { return "run"; }
    @Override public String summary() { return "run a .data, .bin or .s program and print r0"; }
    @Override public String usage() { return "bpf4j run FILE [--engine interp|jit|all] [--mem HEXFILE]"; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of("--engine", "--mem"));
        Path file = Path.of(args.single("FILE"));
        List<Engine> engines = Engines.select(args.option("--engine").orElse("interp"));
        ProgramInput input = ProgramInput.load(file);
        if (args.option("--mem").isPresent()) input = input.withMem(ProgramInput.loadMem(Path.of(args.option("--mem").get())));
        if (engines.size() == 1) {
            out.println(format(runOnce(input, engines.get(0))));
            return 0;
        }
        // Several engines: one line each, and a non-zero status when any fails or they disagree.
        int status = 0;
        Set<String> outcomes = new HashSet<>();
        for (Engine engine : engines) {
            try {
                long r0 = runOnce(input, engine);
                out.println(engine.name() + ": " + format(r0));
                outcomes.add(format(r0));
            } catch (RuntimeException e) {
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

    private static long runOnce(ProgramInput input, Engine engine) {
        try (MemoryBlock mem = MemoryBlock.of(input.mem());
             Executable exe = Bpf.load(input.program(), engine, ConformanceHelpers.loadOptions())) {
            return exe.run(mem.context());
        }
    }

    private static String format(long r0) { return String.format("r0 = %d (0x%x)", r0, r0); }
}
