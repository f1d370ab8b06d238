package dev.bpf4j.it;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The committed corpus must be exactly what tools/conformance/generate.py produces (its expected
 * values come from the script's RFC 9669 model), so nobody edits an expected value by hand.
 * Needs python3; skipped with a message where it is missing.
 */
class CorpusDriftTest {
    @Test
    void committedCorpusMatchesTheGenerator() {
        Path script = Path.of("tools/conformance/generate.py").toAbsolutePath();
        Optional<ExternalTool.Result> run = ExternalTool.tryRun(null, Duration.ofMinutes(5), List.of("python3", script.toString(), "--check"));
        assumeTrue(run.isPresent(), "python3 is not installed: corpus drift not checked");
        assertThat(run.get().timedOut()).as("generate.py --check finished").isFalse();
        String output = run.get().output();
        assertThat(run.get().status()).as(output).isZero();
        assertThat(output).contains("corpus up to date");
    }
}
