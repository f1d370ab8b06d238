package dev.bpf4j.jit.probe;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The libraries of {@code src/test/c/anyentry.c}, built once per test JVM by the committed
 * {@code src/test/c/build-anyentry.sh} with gcc (tests skip without gcc): ordinary code, nothing
 * instrumented, probed by displacing its first instructions.
 */
enum AnyEntryLib {
    O2("libanyentry-O2.so"), O2FP("libanyentry-O2fp.so"), O0("libanyentry-O0.so"), CET("libanyentry-cet.so");

    private static Path dir;
    private final String file;

    AnyEntryLib(String file) { this.file = file; }

    String path() { return built().resolve(file).toString(); }

    long address(String symbol) { return NativeProbes.address(path(), symbol); }

    private static synchronized Path built() {
        if (dir == null) {
            Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the any-entry probe test");
            try {
                Path d = Files.createTempDirectory("bpf4j-anyentry-");
                PatchableLibrary.run(List.of("sh", Path.of("src/test/c/build-anyentry.sh").toAbsolutePath().toString(), d.toString()));
                d.toFile().deleteOnExit();
                try (var files = Files.list(d)) {
                    files.forEach(f -> f.toFile().deleteOnExit());
                }
                dir = d;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return dir;
    }
}
