package dev.bpf4j.cli;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.List;

/** The CLI's door to bpf-core's text assembler and disassembler. */
public final class TextAssembly {
    private TextAssembly() {}

    /** Assembles {@code text}; syntax errors name the line. */
    public static Program assemble(String name, String text) {
        throw new BpfLoadException(name + ": the text assembler is not available in this build");
    }

    /** One line of text per instruction (an lddw is one line). */
    public static List<String> disassemble(Program program) {
        throw new BpfLoadException(program.name() + ": the disassembler is not available in this build");
    }
}
