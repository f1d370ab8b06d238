package dev.bpf4j.it;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The committed corpus must be exactly what tools/conformance/generate.py produces (its expected
 * values come from the script's RFC 9669 model), so nobody edits an expected value by hand.
 * Needs python3; skipped with a message where it is missing.
 */
class CorpusDriftTest {
    @Test
    void committedCorpusMatchesTheGenerator() throws Exception {
        Path script = Path.of("tools/conformance/generate.py").toAbsolutePath();
        Process p;
        try {
            p = new ProcessBuilder("python3", script.toString(), "--check").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assumeTrue(false, "python3 is not installed: corpus drift not checked");
            return;
        }
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("generate.py --check finished").isTrue();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("corpus up to date");
    }
}
