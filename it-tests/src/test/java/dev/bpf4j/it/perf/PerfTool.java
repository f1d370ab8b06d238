package dev.bpf4j.it.perf;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Running {@code perf} and the child JVM for the perf it-tests; skips where perf is missing or refused. */
final class PerfTool {
    private PerfTool() {}

    /** Skips unless this is x86-64 with perf on the PATH. */
    static void assumePerf() {
        Assumptions.assumeTrue(System.getProperty("os.arch").equals("amd64"), "the JIT is x86-64 only");
        Assumptions.assumeTrue(ExternalTool.onPath("perf"), "perf is not installed: skipping the perf interop test");
    }

    /** Skips when {@code perf record} failed because this machine refuses it. */
    static void assumeRecorded(Result rec) {
        if (rec.status != 0 && refused(rec.output)) {
            Assumptions.abort("perf record is refused here (exit " + rec.status + "): " + firstLine(rec.output));
        }
    }

    static String java() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    record Result(int status, String output) {}

    /** Runs {@code command} in {@code dir}; a run past {@code seconds} (killed with its children) fails the test. */
    static Result exec(Path dir, int seconds, String... command) {
        ExternalTool.Result r = ExternalTool.exec(dir, Duration.ofSeconds(seconds), List.of(command));
        if (r.timedOut()) throw new AssertionError(String.join(" ", command) + " did not finish in " + seconds + " s");
        return new Result(r.status(), r.output());
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
