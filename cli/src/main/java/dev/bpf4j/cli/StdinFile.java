package dev.bpf4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code -} where a command expects a file: standard input, read once into a temporary file whose name
 * says what it holds ({@code stdin.o} for an ELF object, {@code stdin.data} for a conformance file,
 * {@code stdin.s} for other text, {@code stdin.bin} for other bytes), so every command reads it as it
 * reads a named file. Used twice in one command line, it is a usage error.
 */
final class StdinFile {
    private final InputStream in;
    private Path file;
    private Path dir;

    StdinFile(InputStream in) { this.in = in; }

    /** {@code arg} itself, or for {@code -} the file holding standard input. */
    String resolve(String arg) {
        if (!arg.equals("-")) return arg;
        if (file != null) throw new UsageException("standard input ('-') given twice");
        try {
            byte[] bytes = in.readAllBytes();
            dir = Files.createTempDirectory("bpf4j-stdin");
            file = dir.resolve("stdin" + extension(bytes));
            Files.write(file, bytes);
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("standard input: " + e.getMessage(), e);
        }
    }

    static String extension(byte[] b) {
        if (b.length >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') return ".o";
        if (!isText(b)) return ".bin";
        String text = new String(b, StandardCharsets.UTF_8);
        return text.lines().anyMatch(l -> l.strip().startsWith("-- asm")) ? ".data" : ".s";
    }

    private static boolean isText(byte[] b) {
        for (byte x : b) if (x == 0 || (x < 0x20 && x != '\n' && x != '\r' && x != '\t')) return false;
        return true;
    }

    /** Deletes the temporary file, if one was made. */
    void delete() {
        try {
            if (file != null) Files.deleteIfExists(file);
            if (dir != null) Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary file left behind is not worth failing the command for
        }
    }
}
