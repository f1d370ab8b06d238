package dev.bpf4j.it.perf;

import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The chores of tests that sample a child process: building a C child, sampling it until it exits. */
final class SampledChild {
    private SampledChild() {}

    /** {@code gcc -O2 FLAGS -o DIR/NAME DIR/NAME.c}; skips the test where gcc is missing. */
    static Path gcc(Path dir, String name, String source, String... flags) throws IOException, InterruptedException {
        Path src = dir.resolve(name + ".c"), exe = dir.resolve(name);
        Files.writeString(src, source);
        List<String> cmd = new ArrayList<>(List.of("gcc", "-O2"));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-o", exe.toString(), src.toString()));
        Process gcc;
        try {
            gcc = new ProcessBuilder(cmd).inheritIO().start();
        } catch (IOException e) {
            assumeTrue(false, "gcc is not installed: " + e.getMessage());
            return null;
        }
        assumeTrue(gcc.waitFor() == 0, "gcc failed");
        return exe;
    }

    /**
     * Starts {@code sampler} (skipping the test where perf_event_open is refused), lets the child, which
     * waits for a line on its stdin, go, waits up to 100 s for it to exit, then stops the sampler.
     */
    static void sampleUntilExit(Sampler sampler, Process child) throws IOException, InterruptedException {
        try {
            sampler.start();
        } catch (SamplingRefusedException e) {
            assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
            return;
        }
        try (OutputStream go = child.getOutputStream()) {
            go.write('\n');
        }
        try {
            assertThat(child.waitFor(100, TimeUnit.SECONDS)).isTrue();
        } finally {
            sampler.stop();
        }
    }
}
