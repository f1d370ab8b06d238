package dev.bpf4j.cli;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code bpf4j asm}: assembles text into raw bytecode (8 little-endian bytes per slot). */
final class AsmCommand implements Command {
    @Override public String name() { return "asm"; }
    @Override public String summary() { return "assemble a text program into raw bytecode (.bin)"; }
    @Override public String usage() { return "bpf4j asm IN.s [-o OUT.bin]"; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of("-o", "--output"));
        Path in = Path.of(args.single("input file IN.s"));
        Path target = Path.of(args.option("-o").or(() -> args.option("--output")).orElse(defaultOutput(in)));
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
