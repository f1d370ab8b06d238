package dev.bpf4j.cli;

import dev.bpf4j.asm.AsmPrinter;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.AssemblerException;
import dev.bpf4j.asm.Disassembler;
import dev.bpf4j.program.Program;

import java.nio.file.Path;
import java.util.List;

/** The CLI's door to bpf-core's text assembler, printer and disassembler. */
public final class TextAssembly {
    private TextAssembly() {}

    /** Assembles {@code text}; syntax errors name the source and the line ("x.s: line 3: ..."). */
    public static Program assemble(String source, String text) {
        try {
            return new Program(ProgramLoader.programName(Path.of(source)), Assembler.assemble(text));
        } catch (AssemblerException e) {
            throw e.in(source);
        }
    }

    /** The program in the assembler's own syntax: {@code bpf4j asm} turns it back into the same bytes. */
    public static List<String> print(Program program) {
        return AsmPrinter.lines(program.toArray());
    }

    /** An llvm-objdump style listing ({@code pc: r0 = r1 ...}), one line per instruction. */
    public static String llvmListing(Program program) {
        return Disassembler.standard().listing(program.toArray());
    }
}
