package dev.bpf4j.unwind;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the native tools (gcc, nm, objdump, ...) that build and inspect the C libraries the tests,
 * the benchmarks and the CLI compare against, and the build scripts the drift tests rerun. One
 * place for it, so every caller gets a time limit, the tool's output, and a clear answer when the
 * tool is not installed.
 */
public final class ExternalTool {
    private static final long TIMEOUT_SECONDS = 60;

    private ExternalTool() {}

    /** Whether {@code tool --version} runs and succeeds within 30 seconds. */
    public static boolean available(String tool) {
        return tryRun(null, Duration.ofSeconds(30), List.of(tool, "--version")).map(Result::ok).orElse(false);
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

    /** How a tool run by {@link #tryRun} ended: exit status and combined stdout and stderr. */
    public record Result(int status, String output, boolean timedOut) {
        /** Finished in time with exit status 0. */
        public boolean ok() { return !timedOut && status == 0; }
    }

    /** The executable file {@code tool} names: itself when it contains a '/', else the first on the PATH. */
    public static Optional<Path> which(String tool) {
        if (tool.contains("/")) return Files.isExecutable(Path.of(tool)) ? Optional.of(Path.of(tool)) : Optional.empty();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return Optional.of(Path.of(dir, tool));
        }
        return Optional.empty();
    }

    /** Whether {@code tool} is an executable file on the PATH (nothing is run). */
    public static boolean onPath(String tool) { return which(tool).isPresent(); }

    /**
     * Runs {@code cmd} in {@code dir} (null: this process's directory) with its stdout and stderr
     * merged into a temporary file, so a tool that hangs, or leaves a child holding the output open,
     * cannot block the reader. Empty when the tool cannot be started (not installed). A tool still
     * running after {@code timeout} is killed with its descendants: the result says
     * {@link Result#timedOut}, status -1, with what it printed so far.
     */
    public static Optional<Result> tryRun(Path dir, Duration timeout, List<String> cmd) {
        Path out = null;
        try {
            out = Files.createTempFile("bpf4j-tool", ".out");
            ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            if (dir != null) b.directory(dir.toFile());
            Process p;
            try {
                p = b.start();
            } catch (IOException notInstalled) {
                return Optional.empty();
            }
            p.getOutputStream().close(); // no input: a tool reading stdin sees EOF
            boolean finished = waitFor(p, timeout, cmd);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            return Optional.of(finished ? new Result(p.exitValue(), text, false) : new Result(-1, text + "\n(timed out)", true));
        } catch (IOException e) {
            throw new UncheckedIOException(cmd + ": " + e.getMessage(), e);
        } finally {
            if (out != null) {
                try { Files.deleteIfExists(out); } catch (IOException ignored) { /* a temp file left behind is harmless */ }
            }
        }
    }

    /** As {@link #tryRun}, for a tool that must be installed: {@link UncheckedIOException} when it cannot start. */
    public static Result exec(Path dir, Duration timeout, List<String> cmd) {
        return tryRun(dir, timeout, cmd).orElseThrow(() -> new UncheckedIOException(new IOException(cmd.get(0) + " cannot be started (not installed?)")));
    }

    private static boolean waitFor(Process p, Duration timeout, List<String> cmd) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException(cmd + " interrupted", e);
        }
    }
}
