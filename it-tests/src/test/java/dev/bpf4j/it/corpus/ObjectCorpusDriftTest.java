package dev.bpf4j.it.corpus;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every committed corpus object is exactly what {@code corpus/build.sh} makes from its C source, and
 * every source has its object. Needs clang-14; skipped with a message where it is missing.
 */
class ObjectCorpusDriftTest {
    @Test
    void committedObjectsMatchTheirSources(@TempDir Path out) throws Exception {
        Process probe;
        try {
            probe = new ProcessBuilder("clang-14", "--version").redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            probe.waitFor(1, TimeUnit.MINUTES);
        } catch (java.io.IOException e) {
            assumeTrue(false, "clang-14 is not installed: corpus objects not checked for drift");
            return;
        }
        Path dir = CorpusCase.DIR.toAbsolutePath();
        Process p = new ProcessBuilder("sh", dir.resolve("build.sh").toString(), out.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        List<String> sources;
        try (Stream<Path> s = Files.list(dir.resolve("src"))) {
            sources = s.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".c")).map(n -> n.replace(".c", ".o")).sorted().toList();
        }
        assertThat(sources).hasSizeGreaterThanOrEqualTo(25);
        for (String o : sources) {
            assertThat(Files.readAllBytes(out.resolve(o))).as("%s rebuilt by build.sh", o).isEqualTo(Files.readAllBytes(dir.resolve(o)));
        }
    }
}
