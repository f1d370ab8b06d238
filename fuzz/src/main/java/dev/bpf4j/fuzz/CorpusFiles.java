package dev.bpf4j.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Every {@code *.data} file under a directory (or the file itself), sorted: the mutation mode's seeds. */
public final class CorpusFiles {
    private CorpusFiles() {}

    public static List<Path> collect(Path root) {
        if (Files.isRegularFile(root)) return List.of(root);
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".data")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
        }
    }
}
