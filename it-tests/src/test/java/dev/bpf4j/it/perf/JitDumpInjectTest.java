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
 * The jitdump file is one perf reads: {@link NestedLoopChild} runs with {@code -Dbpf4j.jitdump=true}
 * (and no perf map) under {@code perf record -k 1}; {@code perf inject --jit} must turn each
 * JIT_CODE_LOAD into a {@code jitted-<pid>-<index>.so}, and {@code perf script} must then name the
 * innermost subprogram's samples from that ELF image.
 */
class JitDumpInjectTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void perfInjectJitTurnsTheDumpIntoElfImagesNamingTheJitFunctions(@TempDir Path dir) throws Exception {
        PerfTool.assumePerf();
        Path data = dir.resolve("perf.data"), injected = dir.resolve("perf.jit.data"), dumps = dir.resolve("jit");
        PerfTool.Result rec = PerfTool.exec(dir, 45, "perf", "record", "-q", "-k", "1", "-e", "cpu-clock", "-o", data.toString(), "--",
                PerfTool.java(), "-Dbpf4j.jitdump=true", "-Dbpf4j.jitdump.dir=" + dumps, "-cp", System.getProperty("java.class.path"),
                NestedLoopChild.class.getName(), "800", "jitdump");
        PerfTool.assumeRecorded(rec);
        assertThat(rec.status()).as("perf record + child:\n%s", rec.output()).isZero();
        Matcher pid = Pattern.compile("(?m)^pid (\\d+)$").matcher(rec.output());
        assertThat(pid.find()).as(rec.output()).isTrue();
        assertThat(Path.of("/tmp/perf-" + pid.group(1) + ".map")).as("no perf map was asked for").doesNotExist();
        List<String> symbols = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^symbol (\\S+)$").matcher(rec.output());
        while (m.find()) symbols.add(m.group(1));
        assertThat(symbols).hasSize(4);
        assertThat(dumps.resolve("jit-" + pid.group(1) + ".dump")).isRegularFile();

        PerfTool.Result inject = PerfTool.exec(dir, 30, "perf", "inject", "--jit", "-i", data.toString(), "-o", injected.toString());
        assertThat(inject.status()).as("perf inject:\n%s", inject.output()).isZero();
        try (var files = Files.list(dumps)) {
            // 4 functions + the stub block + the process's test-run loop (bpf4j_test_run, mapped when the
            // JIT's entry binds): one ELF image per JIT_CODE_LOAD.
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.matches("jitted-" + pid.group(1) + "-\\d+\\.so")))
                    .hasSize(6);
        }
        PerfTool.Result script = PerfTool.exec(dir, 30, "perf", "script", "-i", injected.toString(), "-F", "ip,sym,dso");
        assertThat(script.status()).as("perf script:\n%s", PerfTool.firstLine(script.output())).isZero();
        String sub3 = symbols.get(3);
        Pattern named = Pattern.compile("(?m)^\\s*[0-9a-f]+ " + Pattern.quote(sub3) + "\\+?\\S* \\(" + Pattern.quote(dumps.toString())
                + "/jitted-" + pid.group(1) + "-\\d+\\.so\\)$");
        long hits = script.output().lines().filter(l -> named.matcher(l).find()).count();
        assertThat(hits).as("samples of %s named from its jitted ELF image", sub3).isGreaterThan(50);
    }
}
