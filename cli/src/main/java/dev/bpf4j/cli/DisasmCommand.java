package dev.bpf4j.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code bpf4j disasm}: prints the text form of raw bytecode or of a {@code .data} program. */
final class DisasmCommand implements Command {
    @Override public String name() { return "disasm"; }
    @Override public String summary() { return "disassemble a .bin (or the program of a .data file)"; }
    @Override public String usage() { return "bpf4j disasm FILE.bin|FILE.data"; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of());
        ProgramInput input = ProgramInput.load(Path.of(args.single("FILE")));
        for (String line : TextAssembly.disassemble(input.program())) out.println(line);
        return 0;
    }
}
