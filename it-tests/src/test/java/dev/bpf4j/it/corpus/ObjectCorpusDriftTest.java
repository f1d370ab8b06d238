package dev.bpf4j.it.corpus;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
        assumeTrue(ExternalTool.tryRun(null, Duration.ofMinutes(1), List.of("clang-14", "--version")).isPresent(),
                "clang-14 is not installed: corpus objects not checked for drift");
        Path dir = CorpusCase.DIR.toAbsolutePath();
        ExternalTool.Result build = ExternalTool.exec(null, Duration.ofMinutes(5), List.of("sh", dir.resolve("build.sh").toString(), out.toString()));
        assertThat(build.timedOut()).isFalse();
        assertThat(build.status()).as(build.output()).isZero();
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
