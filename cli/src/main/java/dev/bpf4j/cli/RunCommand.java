package dev.bpf4j.cli;

import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.conformance.MemoryBlock;
import dev.bpf4j.runtime.Bpf;
import dev.bpf4j.runtime.Engine;
import dev.bpf4j.runtime.Executable;

import java.io.PrintStream;
import java.nio.file.Path;
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
        int status = 0;
        for (Engine engine : engines) {
            String prefix = engines.size() > 1 ? engine.name() + ": " : "";
            try (MemoryBlock mem = MemoryBlock.of(input.mem());
                 Executable exe = Bpf.load(input.program(), engine, ConformanceHelpers.loadOptions())) {
                long r0 = exe.run(mem.context());
                out.printf("%sr0 = %d (0x%x)%n", prefix, r0, r0);
            } catch (RuntimeException e) {
                if (engines.size() == 1) throw e;
                err.println(prefix + e.getMessage());
                status = 1;
            }
        }
        return status;
    }
}
