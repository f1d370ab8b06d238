package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The process runner the tests, benchmarks and CLI share: status, merged output, directory, time limit, absent tools. */
class ExternalToolTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    @Test
    void statusAndMergedOutput() {
        ExternalTool.Result r = ExternalTool.exec(null, MINUTE, List.of("sh", "-c", "echo out; echo err >&2; exit 3"));
        assertThat(r.status()).isEqualTo(3);
        assertThat(r.output()).isEqualTo("out\nerr\n");
        assertThat(r.timedOut()).isFalse();
        assertThat(r.ok()).isFalse();
        assertThat(ExternalTool.exec(null, MINUTE, List.of("true")).ok()).isTrue();
    }

    @Test
    void runsInTheGivenDirectory(@TempDir Path dir) {
        assertThat(ExternalTool.exec(dir, MINUTE, List.of("pwd")).output().strip()).isEqualTo(dir.toAbsolutePath().toString());
    }

    @Test
    void aToolThatIsNotInstalledIsEmptyNotAnError() {
        List<String> cmd = List.of("bpf4j-no-such-tool", "--version");
        assertThat(ExternalTool.tryRun(null, MINUTE, cmd)).isEmpty();
        assertThatThrownBy(() -> ExternalTool.exec(null, MINUTE, cmd)).isInstanceOf(UncheckedIOException.class).hasMessageContaining("bpf4j-no-such-tool");
        assertThat(ExternalTool.onPath("bpf4j-no-such-tool")).isFalse();
        assertThat(ExternalTool.available("bpf4j-no-such-tool")).isFalse();
        assertThat(ExternalTool.onPath("sh")).isTrue();
        assertThat(ExternalTool.which("sh")).get().satisfies(p -> assertThat(p.getFileName().toString()).isEqualTo("sh"));
    }

    @Test
    void aToolPastItsTimeLimitIsKilledWithItsChildren() {
        long start = System.nanoTime();
        // The child sleep keeps the output open: the runner must not wait for it either.
        ExternalTool.Result r = ExternalTool.exec(null, Duration.ofSeconds(1), List.of("sh", "-c", "echo started; sleep 30 & sleep 30"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThat(r.timedOut()).isTrue();
        assertThat(r.status()).isEqualTo(-1);
        assertThat(r.output()).startsWith("started\n").endsWith("(timed out)");
        assertThat(r.ok()).isFalse();
    }
}
