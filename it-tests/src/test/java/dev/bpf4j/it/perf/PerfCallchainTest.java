package dev.bpf4j.it.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Linux perf walks and names JIT frames: {@link NestedLoopChild} runs under
 * {@code perf record -e cpu-clock --call-graph=fp}; {@code perf script} must name the
 * {@code bpf_prog_<tag>_…} functions from the child's perf map, and every sample that lands in the
 * innermost subprogram must show sub3 → sub2 → sub1 → main in that order (the kernel's own
 * frame-pointer walk through our rbp frames). Skips where perf is missing or refused.
 */
class PerfCallchainTest {
    private static final Pattern FRAME = Pattern.compile("^\\s+([0-9a-f]+)\\s+(\\S+)");
    private static final long RUN_MILLIS = 1500;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void perfNamesTheJitFunctionsAndWalksNestedSubprogramsInOrder(@TempDir Path dir) throws Exception {
        PerfTool.assumePerf();
        Path data = dir.resolve("perf.data");
        PerfTool.Result rec = PerfTool.exec(dir, 45, "perf", "record", "-q", "-e", "cpu-clock", "--call-graph=fp", "-o", data.toString(), "--",
                PerfTool.java(), "-XX:+PreserveFramePointer", "-cp", System.getProperty("java.class.path"),
                NestedLoopChild.class.getName(), Long.toString(RUN_MILLIS), "perfmap");
        PerfTool.assumeRecorded(rec);
        List<String> symbols = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^symbol (\\S+)$").matcher(rec.output());
        while (m.find()) symbols.add(m.group(1));
        Matcher pid = Pattern.compile("(?m)^pid (\\d+)$").matcher(rec.output());
        Path perfMap = pid.find() ? Path.of("/tmp/perf-" + pid.group(1) + ".map") : null;
        try {
            check(rec, symbols, data, dir);
        } finally {
            if (perfMap != null) Files.deleteIfExists(perfMap);
        }
    }

    private static void check(PerfTool.Result rec, List<String> symbols, Path data, Path dir) throws Exception {
        assertThat(rec.status()).as("perf record + child:\n%s", rec.output()).isZero();
        assertThat(symbols).as("child output:\n%s", rec.output()).hasSize(4);
        String main = symbols.get(0), sub1 = symbols.get(1), sub2 = symbols.get(2), sub3 = symbols.get(3);
        assertThat(main).matches("bpf_prog_[0-9a-f]{16}_nested_spin");
        assertThat(List.of(sub1, sub2, sub3)).allMatch(s -> s.matches("bpf_prog_[0-9a-f]{16}_F")).doesNotHaveDuplicates();

        PerfTool.Result script = PerfTool.exec(dir, 40, "perf", "script", "-i", data.toString(), "-F", "ip,sym");
        assertThat(script.status()).as("perf script:\n%s", PerfTool.firstLine(script.output())).isZero();
        int inSub3 = 0, inOrder = 0;
        List<String> bad = new ArrayList<>();
        for (List<String> chain : samples(script.output())) {
            int at = chain.indexOf(sub3);
            if (at < 0) continue;
            inSub3++;
            List<String> callers = chain.subList(at, Math.min(chain.size(), at + 4));
            if (callers.equals(List.of(sub3, sub2, sub1, main))) inOrder++;
            else if (bad.size() < 5) bad.add(chain.toString());
        }
        for (String s : symbols) {
            assertThat(script.output().contains(s)).as("perf script names %s (from the child's perf map)", s).isTrue();
        }
        assertThat(inSub3).as("samples in the innermost loop").isGreaterThan(100);
        // A sample on a function's push rbp or ret loses one caller in the kernel's walk: rare in a long loop.
        assertThat(inOrder).as("samples with sub3 > sub2 > sub1 > main, of %d; e.g. %s", inSub3, bad)
                .isGreaterThanOrEqualTo(inSub3 * 95 / 100);
    }

    /** Each sample's callchain (symbols, innermost first); samples are separated by blank lines. */
    static List<List<String>> samples(String script) {
        List<List<String>> out = new ArrayList<>();
        List<String> cur = new ArrayList<>();
        for (String line : script.split("\n", -1)) {
            if (line.isBlank()) {
                if (!cur.isEmpty()) out.add(cur);
                cur = new ArrayList<>();
                continue;
            }
            Matcher f = FRAME.matcher(line);
            if (f.find()) cur.add(f.group(2).replaceFirst("\\+0x[0-9a-f]+$", ""));
        }
        if (!cur.isEmpty()) out.add(cur);
        return out;
    }
}
