package dev.bpf4j.cli;

import dev.bpf4j.conformance.DataFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class FuzzCommandTest {
    @Test void aGrammarCampaignPrintsItsSeedAndASummaryAndExitsZero() {
        CliRunner r = CliRunner.run("fuzz", "--seed", "5", "--count", "150");
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("fuzz grammar seed 5 on [interp, jit, jvm], 150 programs, 1 job(s)")
                .containsPattern("fuzz grammar seed 5: 150 programs, \\d+/s, accepted \\d+\\.\\d%, mismatches 0, crashes 0, hangs 0(, slow loads \\d+)? in ");
    }

    /** Linux as third engine: the verdict table and the coverage table are printed; skipped where bpf() is refused. */
    @Test void theKernelEngineAddsVerdictsAndTheSummaryCoverage() {
        dev.bpf4j.kernel.KernelBpf.Availability k = dev.bpf4j.kernel.KernelBpf.availability();
        org.junit.jupiter.api.Assumptions.assumeTrue(k.available(), () -> "fuzz --engines ...,kernel needs bpf(): " + k.reason());
        CliRunner r = CliRunner.run("fuzz", "--seed", "11", "--count", "60", "--engines", "interp,jit,kernel", "--minimise", "0");
        assertThat(r.out()).as(r.out() + r.err()).contains("fuzz grammar seed 11 on [interp, jit, kernel], 60 programs")
                .contains("coverage (class: programs / accepted):").contains("map-lookup").contains("kernel verdicts: both accept ");
        assertThat(r.status()).isIn(0, 1);
    }

    @Test void twoJobsRunTheSameNumberOfPrograms() {
        CliRunner r = CliRunner.run("fuzz", "--seed", "9", "--count", "100", "--jobs", "2", "--engines", "interp,jit");
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains(": 100 programs,");
    }

    @Test void replayRunsEveryFileOnceAsItIs(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.data"), "-- asm\nldxw %r0, [%r1+0]\nexit\n-- mem\n2a 00 00 00\n-- result\n42\n");
        Files.writeString(dir.resolve("b.data"), "-- asm\nmov %r0, 7\nexit\n-- result\n7\n");
        CliRunner r = CliRunner.run("fuzz", "--mode", "replay", "--corpus", dir.toString());
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("fuzz replay seed 0: 2 programs,").contains("accepted 100.0%, mismatches 0");
        assertThat(CliRunner.run("fuzz", "--mode", "replay", "--corpus", dir.toString(), "--count", "3").status()).isEqualTo(2);
    }

    @Test void badCommandLinesAreUsageErrors() {
        assertThat(CliRunner.run("fuzz", "--count", "5", "--time", "1s").status()).isEqualTo(2);
        assertThat(CliRunner.run("fuzz", "--mode", "nope").status()).isEqualTo(2);
        assertThat(CliRunner.run("fuzz", "--engines", "interp,nope").err()).contains("unknown or unavailable engine 'nope'");
        assertThat(CliRunner.run("fuzz", "--mode", "bytes", "--frame-escapes").status()).isEqualTo(2);
        assertThat(CliRunner.run("fuzz", "--time", "-3s").status()).isEqualTo(2);
        assertThat(CliRunner.run("fuzz", "--objects", "150").err()).contains("--objects is a percentage");
    }

    /**
     * The campaign in its own JVM, as a user runs it: a JVM crash (SIGSEGV in JIT code, exit 134) would
     * show here as a status other than 0 (no mismatch) or 1 (mismatches, each with a parseable reproducer).
     */
    @Test void aRawBytesCampaignInItsOwnJvmEndsWithASummaryAndReproducers(@TempDir Path out) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "fuzz", "--mode", "bytes", "--seed", "3", "--count", "3000", "--out", out.toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the campaign ends").isTrue();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isIn(0, 1);
        assertThat(text).containsPattern("fuzz bytes seed 3: 3000 programs, .*crashes 0, hangs 0").doesNotContain("hs_err");
        List<Path> files;
        try (Stream<Path> s = Files.list(out)) {
            files = s.toList();
        } catch (java.nio.file.NoSuchFileException e) {
            files = List.of();
        }
        assertThat(p.exitValue() == 1).as("exit 1 exactly when there are reproducers: " + files).isEqualTo(!files.isEmpty());
        for (Path f : files) assertThat(DataFile.read(f).skipped()).as(f.toString()).isFalse();
    }
}
