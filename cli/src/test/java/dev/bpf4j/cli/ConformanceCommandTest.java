package dev.bpf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ConformanceCommandTest {
    @TempDir Path dir;

    @Test
    void printsFailuresThenTheSummaryAndFailsTheExitStatus() throws Exception {
        Files.writeString(dir.resolve("good.data"), "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        Files.writeString(dir.resolve("bad.data"), "-- asm\nmov %r0, 1\nexit\n-- result\n2\n");
        Files.writeString(dir.resolve("skip.data"), "-- map\nx\n-- asm\nexit\n-- result\n2\n");
        CliRunner r = CliRunner.run("conformance", dir.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).isEqualTo("FAIL " + dir.resolve("bad.data") + ": expected r0 = 2 (0x2), got 1 (0x1)\n"
                + "1 passed, 1 failed, 1 skipped\n");
    }

    @Test
    void allPassingExitsZero() throws Exception {
        Path f = dir.resolve("good.data");
        Files.writeString(f, "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        CliRunner r = CliRunner.run("conformance", "--engine", "all", f.toString());
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("1 passed, 0 failed\n");
    }

    @Test
    void missingPathIsBadInput() {
        CliRunner r = CliRunner.run("conformance", dir.resolve("nope").toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no such file or directory");
    }
}
