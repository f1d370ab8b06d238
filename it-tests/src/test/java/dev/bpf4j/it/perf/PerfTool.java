package dev.bpf4j.it.perf;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Running {@code perf} and the child JVM for the perf it-tests; skips where perf is missing or refused. */
final class PerfTool {
    private PerfTool() {}

    /** Skips unless this is x86-64 with perf on the PATH. */
    static void assumePerf() {
        Assumptions.assumeTrue(System.getProperty("os.arch").equals("amd64"), "the JIT is x86-64 only");
        Assumptions.assumeTrue(onPath("perf"), "perf is not installed: skipping the perf interop test");
    }

    /** Skips when {@code perf record} failed because this machine refuses it. */
    static void assumeRecorded(Result rec) {
        if (rec.status != 0 && refused(rec.output)) {
            Assumptions.abort("perf record is refused here (exit " + rec.status + "): " + firstLine(rec.output));
        }
    }

    static String java() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    record Result(int status, String output) {}

    static Result exec(Path dir, int seconds, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in " + seconds + " s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) return true;
        }
        return false;
    }

    static boolean refused(String output) {
        String o = output.toLowerCase();
        return o.contains("perf_event_paranoid") || o.contains("permission denied") || o.contains("operation not permitted")
                || o.contains("no permission") || o.contains("not supported");
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}
