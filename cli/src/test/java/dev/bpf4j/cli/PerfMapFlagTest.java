package dev.bpf4j.cli;

import dev.bpf4j.unwind.perf.PerfMapWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run --perf-map} and {@code conformance --perf-map} name the JIT code in /tmp/perf-<pid>.map. */
class PerfMapFlagTest {
    /** The test JVM's perf map is a by-product: leave no file in /tmp (later writes go to the unlinked file). */
    @AfterAll static void removePerfMap() throws Exception { Files.deleteIfExists(PerfMapWriter.defaultPath()); }

    private static Path data(Path dir, String name) throws Exception {
        Path f = dir.resolve(name + ".data");
        Files.writeString(f, "-- asm\nmov %r6, 3\ncall local f\nadd %r0, %r6\nexit\nf:\nmov %r0, 4\nexit\n-- result\n0x7\n");
        return f;
    }

    private static List<String> mapLinesFor(String name) throws Exception {
        return Files.readAllLines(PerfMapWriter.defaultPath()).stream().filter(l -> l.endsWith("_" + name) || l.contains("_" + name + "__")).toList();
    }

    @Test void runWithPerfMapWritesTheProgramsSymbols(@TempDir Path dir) throws Exception {
        CliRunner r = CliRunner.run("run", "--engine", "jit", "--perf-map", data(dir, "pm_run").toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("r0 = 7");
        assertThat(r.err()).contains("perf map: " + PerfMapWriter.defaultPath());
        assertThat(mapLinesFor("pm_run")).anySatisfy(l -> assertThat(l).matches("[0-9a-f]+ [0-9a-f]+ bpf_prog_[0-9a-f]{16}_pm_run"))
                .anySatisfy(l -> assertThat(l).matches("[0-9a-f]+ [0-9a-f]+ bpf_prog_[0-9a-f]{16}_pm_run__stubs"));
    }

    @Test void conformanceWithPerfMapWritesEveryFilesSymbols(@TempDir Path dir) throws Exception {
        data(dir, "pm_conf_a");
        data(dir, "pm_conf_b");
        CliRunner r = CliRunner.run("conformance", "--engine", "jit", "--perf-map", dir.toString());
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(mapLinesFor("pm_conf_a")).isNotEmpty();
        assertThat(mapLinesFor("pm_conf_b")).isNotEmpty();
    }

    @Test void runObjectWithPerfMapWritesItsProgramsSymbol(@TempDir Path dir) throws Exception {
        Path packet = Files.write(dir.resolve("pkt.bin"), new byte[64]);
        CliRunner r = CliRunner.run("run", BadInputTest.PROTO_COUNT, "--engine", "jit", "--data-in", packet.toString(), "--perf-map");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("perf map: " + PerfMapWriter.defaultPath());
        assertThat(mapLinesFor("xdp_proto_count")).as(r.out() + r.err())
                .anySatisfy(l -> assertThat(l).matches("[0-9a-f]+ [0-9a-f]+ bpf_prog_[0-9a-f]{16}_xdp_proto_count"));
    }

    /** Once on, the perf map stays on for the process (as a JIT load with perfMap does); without the flag nothing is said. */
    @Test void withoutTheFlagRunSaysNothingAboutAPerfMap(@TempDir Path dir) throws Exception {
        CliRunner r = CliRunner.run("run", "--engine", "jit", data(dir, "pm_none").toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).doesNotContain("perf map");
    }
}
