package dev.bpf4j.cli;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;

import java.nio.file.Path;
import java.util.Arrays;

/** Turns the CLI's inputs (.data, raw .bin, assembly text) into {@link Program}s. */
public final class ProgramLoader {
    private ProgramLoader() {}

    /** The program name derived from a file: its name without the extension. */
    public static String programName(Path file) {
        String n = file.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    /**
     * The program of a parsed {@code .data} file (its {@code -- raw} section, else its {@code -- asm}),
     * named after the file; assembler errors name the file and its line.
     */
    public static Program fromDataFile(DataFile f) {
        String name = programName(Path.of(f.name()));
        if (f.rawBytes().isPresent()) return fromBytes(name, f.rawBytes().get()); // with -- asm too, that is its listing
        return TextAssembly.assemble(f.name(), f.asm().orElseThrow(() -> new BpfLoadException(f.name() + ": no program section")));
    }

    /** Decodes raw bytecode: a multiple of 8 bytes, one slot per 8. */
    public static Program fromBytes(String name, byte[] bytes) {
        if (bytes.length == 0) throw new BpfLoadException(name + ": empty bytecode");
        if (bytes.length % Insn.SIZE != 0) {
            throw new BpfLoadException(name + ": truncated bytecode: " + bytes.length + " bytes is not a multiple of 8 (the last "
                    + (bytes.length % Insn.SIZE) + " bytes at offset " + (bytes.length / Insn.SIZE * Insn.SIZE) + " are a partial instruction)");
        }
        return new Program(name, Arrays.asList(Insn.decodeAll(bytes)));
    }
}
