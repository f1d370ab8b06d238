package dev.bpf4j.cli;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code bpf4j asm}: assembles text into raw bytecode (8 little-endian bytes per slot). */
final class AsmCommand implements Command {
    @Override public String name() { return "asm"; }
    @Override public String summary() { return "assemble a text program into raw bytecode (.bin)"; }
    @Override public String usage() { return "bpf4j asm IN.s [-o OUT.bin]"; }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("-o,--output", "OUT.bin", "where the bytecode goes (default: IN with .bin for its extension;"
                + " required when IN is -)", null));
    }

    @Override public String parameters() { return "IN.s"; }

    @Override public String parametersDescription() { return "the program in the conformance suites' text syntax; - for standard input"; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        String input = args.single("input file IN.s");
        Path in = Path.of(input);
        if (args.option("--output").isEmpty() && in.getParent() != null && in.getParent().getFileName().toString().startsWith("bpf4j-stdin")) {
            throw new UsageException("reading standard input: give -o OUT.bin");
        }
        Path target = Path.of(args.option("--output").orElse(defaultOutput(in)));
        Program program = TextAssembly.assemble(in.toString(), ProgramInput.readText(in));
        byte[] bytes = Insn.encodeAll(program.toArray());
        try {
            Files.write(target, bytes);
        } catch (IOException e) {
            throw new CliException(target + ": cannot write: " + e.getMessage(), e);
        }
        out.printf("wrote %d instruction slots (%d bytes) to %s%n", program.length(), bytes.length, target);
        return 0;
    }

    private static String defaultOutput(Path in) {
        String s = in.toString();
        int dot = s.lastIndexOf('.');
        return (dot > s.lastIndexOf('/') && dot > 0 ? s.substring(0, dot) : s) + ".bin";
    }
}
