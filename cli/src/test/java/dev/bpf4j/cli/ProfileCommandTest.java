package dev.bpf4j.cli;

import dev.bpf4j.unwind.profile.FoldedStacks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code bpf4j demo} and {@code bpf4j profile} as a user runs them: the printed chain and top
 * stacks, the folded file (flamegraph.pl's format, root first) and the flame graph page, whose
 * frames are the folded file's. perf_event_open runs are skipped where the kernel refuses it.
 */
class ProfileCommandTest {
    private static final Pattern SYMBOL = Pattern.compile("^  (main|sub1|sub2|sub3) += (bpf_prog_[0-9a-f]{16}_\\w+)$", Pattern.MULTILINE);
    private static final Pattern FOLDED_LINE = Pattern.compile("[^\\n;]+(;[^\\n;]+)* \\d+");

    private static void assumePerf(CliRunner r) {
        assumeTrue(!r.err().contains("falling back"), () -> "perf_event_open refused here: " + r.err());
    }

    @Test
    void demoPrintsTheChainNestedAndWritesFoldedStacksAndAFlameGraph(@TempDir Path dir) throws IOException {
        CliRunner r = CliRunner.run("demo", "--out", dir.toString(), "-F", "499", "--duration", "1.5");
        assertThat(r.status()).as("%s%n%s", r.out(), r.err()).isZero();   // exit 1: the engines differed, said on stdout
        assumePerf(r);
        Matcher m = SYMBOL.matcher(r.out());
        String[] sym = new String[4];
        for (int i = 0; i < 4; i++) {
            assertThat(m.find()).as(r.out()).isTrue();
            sym[i] = m.group(2);
        }
        assertThat(sym[0]).endsWith("_demo_chain");
        // The deepest chain, printed among the top stacks, root to leaf: main;sub1;sub2;sub3.
        assertThat(r.out()).contains(String.join(";", sym) + "\n");
        assertThat(r.out()).containsPattern("exact chains: bpf4j (\\d+) \\(100.00%\\)");
        // The same samples through the bundled perf_event program on both engines.
        assertThat(r.out()).containsPattern("perf_event program profile.o \\(bpf_get_stackid per sample\\) on interp and jit over the same [1-9]\\d* samples")
                .contains("  engines agree: same stack ids, frames and counts, same maps\n");

        String folded = Files.readString(dir.resolve("stacks.folded"));
        String html = Files.readString(dir.resolve("flame.html"));
        for (String line : folded.split("\n")) assertThat(line).matches(FOLDED_LINE);
        FoldedStacks stacks = FoldedStacks.parse(folded);
        long inSub3 = stacks.counts().entrySet().stream()
                .filter(e -> e.getKey().size() >= 4 && e.getKey().subList(e.getKey().size() - 4, e.getKey().size()).equals(List.of(sym)))
                .mapToLong(Map.Entry::getValue).sum();
        assertThat(inSub3).as(folded).isGreaterThan(3);

        // The native path: Java -> the bundled library (jffi) -> the probed function -> its
        // trampoline -> the same chain as a probe program, down to sub3.
        Matcher through = Pattern.compile("through the native probe: (\\d+) of (\\d+) samples .* (\\d+) probe hits, 0 errors").matcher(r.out());
        assertThat(through.find()).as(r.out()).isTrue();
        assertThat(Long.parseLong(through.group(1))).as(r.out()).isGreaterThan(0);
        assertThat(Long.parseLong(through.group(3))).isGreaterThan(0);
        assertThat(stacks.counts().keySet()).as(folded).anyMatch(s -> {
            int t = s.indexOf("bpf_trampoline_demo_native_mix");
            return t >= 2 && s.get(t - 1).equals("demo_native_mix") && s.get(t - 2).equals("demo_native_work")
                    && s.size() == t + 5 && s.get(t + 1).endsWith("_demo_probe") && s.subList(t + 2, t + 5).equals(List.of(sym).subList(1, 4));
        });
        assertThat(html).contains("<title>bpf_trampoline_demo_native_mix (");

        // The pprof profile holds the same samples (PprofWriterTest reads its fields back).
        byte[] pprof = Files.readAllBytes(dir.resolve("profile.pb.gz"));
        assertThat(new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(pprof)).readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1))
                .contains(sym[0], sym[3]);
        assertThat(r.out()).contains("wrote " + dir.resolve("profile.pb.gz"));

        for (String s : sym) assertThat(html).contains("<title>" + s + " (");
        assertThat(html).contains(stacks.total() + " samples");
    }

    @Test
    void profileBothEnginesWritesOneFoldedFilePerEngineAndOnePage(@TempDir Path dir) throws IOException {
        CliRunner r = CliRunner.run("profile", "--pid-self", "subprog-chain", "--engine", "both", "--duration", "0.5", "-F", "199",
                "--out", dir.toString(), "--threads", "--top", "3");
        assertThat(r.status()).as(r.err()).isZero();
        assumePerf(r);
        assertThat(r.out()).contains("== interp\n").contains("== jit\n").contains("wrote " + dir.resolve("flame.html"));
        FoldedStacks jit = FoldedStacks.parse(Files.readString(dir.resolve("jit.folded")));
        // --threads roots each stack at its thread's name.
        assertThat(jit.counts().keySet()).anyMatch(s -> s.get(0).equals("bpf4j-workload") && s.get(s.size() - 1).startsWith("bpf_prog_"));
        assertThat(Files.readString(dir.resolve("interp.folded"))).contains("bpf4j-workload;");
        assertThat(dir.resolve("interp.pb.gz")).isNotEmptyFile();
        assertThat(dir.resolve("jit.pb.gz")).isNotEmptyFile();
        String html = Files.readString(dir.resolve("flame.html"));
        assertThat(html).contains("<title>interp (").contains("<title>jit (").contains("<title>bpf4j-workload (");
    }

    @Test
    void theJavaSamplerSeesTheJavaCallIntoTheJit(@TempDir Path dir) throws IOException {
        CliRunner r = CliRunner.run("profile", "--pid-self", "subprog-chain", "--sampler", "java", "--duration", "0.5", "--out", dir.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("samples of the workload thread's Java stack");
        FoldedStacks stacks = FoldedStacks.parse(Files.readString(dir.resolve("stacks.folded")));
        assertThat(stacks.counts().keySet()).anyMatch(s -> s.contains("dev.bpf4j.jit.runtime.JitExecutable.run"));
    }

    @Test
    void helpListsDemoAndProfile() {
        assertThat(CliRunner.run("--help").out()).contains("bpf4j demo [--out DIR]", "bpf4j profile --pid-self WORKLOAD");
        assertThat(CliRunner.run("profile", "--help").out()).startsWith("Usage: bpf4j profile --pid-self WORKLOAD");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(CliRunner.run("profile").err()).contains("missing --pid-self WORKLOAD (one of subprog-chain)");
        assertThat(CliRunner.run("profile", "--pid-self", "x").err()).contains("unknown workload 'x'");
        CliRunner r = CliRunner.run("profile", "--pid-self", "subprog-chain", "-F", "0");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("-F 0: expected a frequency in Hz from 1 to 10000");
        assertThat(CliRunner.run("profile", "--pid-self", "subprog-chain", "--duration", "abc").err()).contains("--duration abc: expected seconds");
        assertThat(CliRunner.run("profile", "--pid-self", "subprog-chain", "--stack-size", "100").err()).contains("--stack-size 100: expected a multiple of 8");
        assertThat(CliRunner.run("profile", "--pid-self", "subprog-chain", "--engine", "kernel").err()).contains("--engine kernel attaches a perf_event program to Linux: give --bpf, --object OBJ or -- COMMAND");
        assertThat(CliRunner.run("profile", "--pid-self", "subprog-chain", "--engine", "x").err()).contains("--engine 'x' (expected one of interp, jit, all)");
        assertThat(CliRunner.run("demo", "extra").status()).isEqualTo(2);
        assertThat(CliRunner.run("demo", "--top", "x").err()).contains("--top x: expected a count >= 0");
    }
}
