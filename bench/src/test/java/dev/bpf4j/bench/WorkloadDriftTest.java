package dev.bpf4j.bench;

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
 * The committed bytecode must be what build-workloads.sh makes from the committed C today, so a
 * change to workloads.h cannot silently leave the BPF side measuring the old code. Skips without
 * clang-14 (the .o itself embeds build paths in its debug info, so only the code is compared).
 */
class WorkloadDriftTest {
    @Test
    void committedBytecodeMatchesTheCSources(@TempDir Path out) throws Exception {
        assumeTrue(ExternalTool.available("clang-14") && ExternalTool.available("llvm-objcopy"), "clang-14 / llvm-objcopy not installed");
        ExternalTool.Result build = ExternalTool.exec(null, Duration.ofSeconds(120), List.of("bash", "build-workloads.sh", out.toString()));
        assertThat(build.timedOut()).isFalse();
        assertThat(build.status()).as(build.output()).isZero();
        for (Workload w : Workload.values()) {
            byte[] committed = Files.readAllBytes(Path.of("src/main/resources/workloads", w.id() + ".bin"));
            assertThat(Files.readAllBytes(out.resolve(w.id() + ".bin")))
                    .as("%s.bin differs from a rebuild: run bench/build-workloads.sh and commit", w.id())
                    .isEqualTo(committed);
        }
    }
}
