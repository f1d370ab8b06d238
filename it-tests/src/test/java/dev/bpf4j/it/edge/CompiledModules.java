package dev.bpf4j.it.edge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main classes of bpf4j's modules as the reactor compiled them ({@code MODULE/target/classes}),
 * read straight from the build tree: the test class path does not hold them all (bpf4j-kernel is kept
 * off it), and the same directories serve a {@code test} and a {@code verify} run.
 */
final class CompiledModules {
    private CompiledModules() {}

    static List<CompiledClass> read(Path root, List<String> modules) throws IOException {
        List<CompiledClass> out = new ArrayList<>();
        for (String module : modules) {
            Path classes = root.resolve(module).resolve("target/classes");
            if (!Files.isDirectory(classes)) throw new IllegalStateException(classes + " is missing: build the reactor first");
            List<Path> files;
            try (Stream<Path> s = Files.walk(classes)) {
                files = s.filter(p -> p.toString().endsWith(".class"))
                        .filter(p -> !classes.relativize(p).startsWith("META-INF")) // the JDK 22 copies of the same classes
                        .filter(p -> !p.getFileName().toString().equals("package-info.class"))
                        .sorted().toList();
            }
            for (Path f : files) out.add(ClassReading.read(Files.readAllBytes(f), module));
        }
        return out;
    }
}
