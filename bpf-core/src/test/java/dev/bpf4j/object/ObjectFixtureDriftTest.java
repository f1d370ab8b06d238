package dev.bpf4j.object;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Rebuilds the object fixtures with their build.sh into a temporary directory and checks that the
 * committed .o files are exactly what their committed sources compile to. Skips when clang-14 or
 * libbpf's headers are not installed (the other tests only need the committed .o files).
 */
class ObjectFixtureDriftTest {
    @Test
    void committedObjectsMatchTheirSources(@TempDir Path out) throws Exception {
        assumeTrue(ExternalTool.onPath("clang-14"), "clang-14 is not installed: skipping the fixture drift check");
        assumeTrue(Files.exists(Path.of("/usr/include/bpf/bpf_helpers.h")), "libbpf-dev headers are not installed: skipping the fixture drift check");
        ExternalTool.Result build = ExternalTool.exec(null, Duration.ofSeconds(120),
                List.of("sh", Fixtures.DIR.resolve("build.sh").toString(), out.toAbsolutePath().toString()));
        assertThat(build.timedOut()).as("build.sh finished").isFalse();
        assertThat(build.status()).as("build.sh exit status; output:%n%s", build.output()).isZero();
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(Fixtures.NAMES));
        all.addAll(java.util.List.of(Fixtures.INVALID));
        for (String name : all) {
            byte[] rebuilt = Files.readAllBytes(out.resolve(name + ".o"));
            assertThat(rebuilt).as("%s.o was rebuilt differently from the committed one: run build.sh and commit", name)
                    .isEqualTo(Files.readAllBytes(Fixtures.path(name)));
        }
        try (var files = Files.list(Fixtures.DIR.resolve("src"))) {
            assertThat(files.filter(f -> f.toString().endsWith(".c")).count()).as("every source has a fixture listed in Fixtures.NAMES or INVALID")
                    .isEqualTo(all.size());
        }
    }
}
