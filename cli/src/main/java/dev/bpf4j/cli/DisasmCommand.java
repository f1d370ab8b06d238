package dev.bpf4j.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * {@code bpf4j disasm}: prints raw bytecode or the program of a {@code .data} file as text. The
 * default syntax is the assembler's own, so {@code bpf4j asm} turns the output back into the same
 * bytes; {@code --syntax llvm} prints an llvm-objdump style listing instead.
 */
final class DisasmCommand implements Command {
    @Override public String name() { return "disasm"; }
    @Override public String summary() { return "disassemble a .bin (or the program of a .data file)"; }
    @Override public String usage() { return "bpf4j disasm FILE.bin|FILE.data [--syntax asm|llvm]"; }

    @Override public int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = new Args(argv, Set.of("--syntax"));
        String syntax = args.option("--syntax").orElse("asm");
        if (!syntax.equals("asm") && !syntax.equals("llvm")) throw new UsageException("unknown syntax '" + syntax + "' (expected asm or llvm)");
        ProgramInput input = ProgramInput.load(Path.of(args.single("FILE")));
        if (syntax.equals("llvm")) {
            out.print(TextAssembly.llvmListing(input.program()));
        } else {
            for (String line : TextAssembly.print(input.program())) out.println(line);
        }
        return 0;
    }
}
