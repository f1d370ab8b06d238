package dev.bpf4j.cli;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.conformance.HexBytes;
import dev.bpf4j.program.Program;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A program file given on the command line, with its memory block when it has one. */
public record ProgramInput(Program program, byte[] mem) {

    /** Loads a {@code .data} file, raw bytecode ({@code .bin}, {@code .o}-free) or assembly ({@code .s}, {@code .asm}). */
    public static ProgramInput load(Path file) {
        requireFile(file);
        String fn = file.getFileName().toString();
        if (fn.endsWith(".data")) {
            DataFile data = DataFile.read(requireFile(file));
            if (data.skipped()) throw new CliException(file + ": cannot run: " + data.skipReason().get());
            return new ProgramInput(ProgramLoader.fromDataFile(data), data.mem().orElse(null));
        }
        if (fn.endsWith(".bin")) return new ProgramInput(ProgramLoader.fromBytes(file.toString(), readBytes(file)), null);
        if (fn.endsWith(".s") || fn.endsWith(".asm")) return new ProgramInput(TextAssembly.assemble(file.toString(), readText(file)), null);
        throw new CliException(file + ": unknown file type (expected .data, .bin or .s)");
    }

    /** Reads a memory block written as hex bytes separated by whitespace. */
    public static byte[] loadMem(Path file) {
        try {
            return HexBytes.parse(readText(file));
        } catch (IllegalArgumentException e) {
            throw new CliException(file + ": " + e.getMessage());
        }
    }

    public ProgramInput withMem(byte[] m) { return new ProgramInput(program, m); }

    static Path requireFile(Path file) {
        if (Files.isDirectory(file)) throw new BadInputException(file + ": is a directory, not a file");
        if (!Files.isRegularFile(file)) throw new BadInputException(file + ": no such file");
        return file;
    }

    static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(requireFile(file));
        } catch (IOException e) {
            throw new CliException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    static String readText(Path file) {
        return new String(readBytes(file), StandardCharsets.UTF_8);
    }
}
