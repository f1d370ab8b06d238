package dev.bpf4j.unwind;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Compiles C test libraries at test time; tests skip when gcc is missing. */
final class Gcc {
    private Gcc() {}

    static final List<String> FLAGS = List.of("-O1", "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer", "-fPIC", "-shared");

    /** {@code lib<name>.so} built from {@code source} in a fresh temp dir (removed when the JVM exits). */
    static Path sharedLibrary(String name, String source) { return sharedLibrary(name, source, FLAGS); }

    /** As {@link #sharedLibrary(String, String)} with these compiler flags (they must make a shared object). */
    static Path sharedLibrary(String name, String source, List<String> flags) {
        Assumptions.assumeTrue(available(), "gcc is not installed: skipping the native-library test");
        try {
            Path dir = Files.createTempDirectory("bpf4j-unwind-");
            Path c = dir.resolve(name + ".c"), so = dir.resolve("lib" + name + ".so");
            Files.writeString(c, source);
            List<String> cmd = new java.util.ArrayList<>(List.of("gcc"));
            cmd.addAll(flags);
            cmd.addAll(List.of("-o", so.toString(), c.toString()));
            run(cmd);
            for (Path p : List.of(so, c, dir)) p.toFile().deleteOnExit();
            return so;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static boolean available() { return ExternalTool.available("gcc"); }

    /** Runs a tool and returns its output; a failure fails the test with the tool's output. */
    static String run(List<String> cmd) { return ExternalTool.run(cmd); }
}
