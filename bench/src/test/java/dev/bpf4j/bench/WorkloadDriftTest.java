package dev.bpf4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The committed bytecode must be what build-workloads.sh makes from the committed C today, so a
 * change to workloads.h cannot silently leave the BPF side measuring the old code. Skips without
 * clang-14 (the .o itself embeds build paths in its debug info, so only the code is compared).
 */
class WorkloadDriftTest {
    @Test
    void committedBytecodeMatchesTheCSources(@TempDir Path out) throws Exception {
        assumeTrue(runs("clang-14", "--version") && runs("llvm-objcopy", "--version"), "clang-14 / llvm-objcopy not installed");
        Process p = new ProcessBuilder("bash", "build-workloads.sh", out.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        for (Workload w : Workload.values()) {
            byte[] committed = Files.readAllBytes(Path.of("src/main/resources/workloads", w.id() + ".bin"));
            assertThat(Files.readAllBytes(out.resolve(w.id() + ".bin")))
                    .as("%s.bin differs from a rebuild: run bench/build-workloads.sh and commit", w.id())
                    .isEqualTo(committed);
        }
    }

    private static boolean runs(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
