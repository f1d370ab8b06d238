package dev.bpf4j.unwind;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the native tools (gcc, nm, objdump, ...) that build and inspect the C libraries the tests,
 * the benchmarks and the CLI compare against. One place for it, so every caller gets the same
 * time limit and the tool's output in the error.
 */
public final class ExternalTool {
    private static final long TIMEOUT_SECONDS = 60;

    private ExternalTool() {}

    /** Whether {@code tool --version} runs and succeeds. */
    public static boolean available(String tool) {
        try {
            Process p = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs {@code cmd}; its combined stdout and stderr, or an {@link IllegalStateException} carrying them. */
    public static String run(List<String> cmd) {
        return run(cmd, null);
    }

    /**
     * Runs {@code cmd} with {@code stdin} (none when null) on its standard input. Returns its
     * standard output; with no input, stderr is merged into it. Fails with the output when the tool
     * exits non-zero or runs longer than a minute.
     */
    public static String run(List<String> cmd, String stdin) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(stdin == null).start();
            try (OutputStream os = p.getOutputStream()) {
                if (stdin != null) os.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd + " timed out");
            }
            if (p.exitValue() != 0) throw new IllegalStateException(cmd + " failed (exit " + p.exitValue() + "):\n" + out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(cmd + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(cmd + " interrupted", e);
        }
    }
}
