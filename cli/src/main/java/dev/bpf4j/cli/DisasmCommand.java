package dev.bpf4j.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bpf4j disasm}: prints raw bytecode or the program of a {@code .data} file as text. The
 * default syntax is the assembler's own, so {@code bpf4j asm} turns the output back into the same
 * bytes; {@code --syntax llvm} prints an llvm-objdump style listing instead.
 */
final class DisasmCommand implements Command {
    @Override public String name() { return "disasm"; }
    @Override public String summary() { return "disassemble a .bin (or the program of a .data file)"; }
    @Override public String usage() { return "bpf4j disasm FILE.bin|FILE.data|OBJ.o [--syntax asm|llvm] [--jited [--program NAME]]"; }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("--syntax", "SYNTAX", "asm (the assembler's, which asm reads back) or llvm (llvm-objdump's)", "asm"),
                Opt.flag("--jited", "print the x86-64 code the JIT makes of it, as bpftool prog dump jited"),
                Opt.valued("--program", "NAME", "with --jited and OBJ.o: only this program (default: every program)", null));
    }

    @Override public String parameters() { return "FILE"; }

    @Override public String parametersDescription() { return "raw bytecode (.bin), a .data file or an object (OBJ.o); - for standard input"; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        String syntax = args.option("--syntax").orElse("asm");
        if (!syntax.equals("asm") && !syntax.equals("llvm")) throw new UsageException("unknown syntax '" + syntax + "' (expected asm or llvm)");
        Path file = Path.of(args.single("FILE"));
        if (ObjectDisasm.isElf(file)) {
            if (args.flag("--jited")) return ObjectDisasm.runJited(file, args.option("--program"), out);
            if (args.option("--program").isPresent()) throw new UsageException("--program goes with --jited");
            return ObjectDisasm.run(file, out);
        }
        if (args.option("--program").isPresent()) throw new UsageException("--program is for objects (OBJ.o)");
        ProgramInput input = ProgramInput.load(file);
        if (args.flag("--jited")) {
            out.print(JitedDisasm.listing(input.program()));
        } else if (syntax.equals("llvm")) {
            out.print(TextAssembly.llvmListing(input.program()));
        } else {
            for (String line : TextAssembly.print(input.program())) out.println(line);
        }
        return 0;
    }
}
