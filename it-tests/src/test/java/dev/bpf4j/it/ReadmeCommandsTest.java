package dev.bpf4j.it;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.cli.Main;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ./bpf4j} command README.md shows runs, verbatim, from the repository root (issue 25,
 * point 7): the words are README's, a relative path is resolved against the root as the launcher's
 * working directory would. The few that sample or fuzz for seconds are run by their own tests, named
 * below; a new README command must be run here or added there.
 */
class ReadmeCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern INLINE = Pattern.compile("`(\\./bpf4j[^`]*)`");

    /** Run elsewhere, and why. */
    private static final Map<String, String> ELSEWHERE = Map.of(
            "./bpf4j demo", "samples for 3 s: ProfileCommandTest runs demo",
            "./bpf4j trace /tmp/libcalls.so --attach leaf --call drive --arg 3 --engine all", "ExamplesTest, with README's gcc command and output",
            "./bpf4j profile --pid-self subprog-chain -F 999 --callchain --out /tmp/p", "samples for 3 s: ProfileCommandTest",
            "./bpf4j profile --engine all -- sleep 1", "perf_event_open on a child: ProfileProgramCommandTest",
            "./bpf4j fuzz --seed 1 --count 2000 --engines interp,jit,kernel", "minutes of fuzzing: FuzzCommandTest runs small campaigns");

    /** README's commands in order: lines of sh blocks and inline code; templates (COMMAND, ...) are syntax, not examples. */
    static List<String> commands(String readme) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = INLINE.matcher(readme);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) spans.add(new int[] {m.start(1), m.end(1)});
        int at = 0;
        for (String line : readme.split("\n", -1)) {
            if (line.startsWith("./bpf4j ")) spans.add(new int[] {at, at + line.length()});
            at += line.length() + 1;
        }
        spans.sort((a, b) -> Integer.compare(a[0], b[0]));
        for (int[] s : spans) {
            String c = readme.substring(s[0], s[1]).strip();
            if (c.equals("./bpf4j") || c.contains("...") || c.contains("COMMAND")) continue;
            out.add(c);
        }
        return List.copyOf(out);
    }

    @Test
    void everyCommandRunsVerbatim() throws Exception {
        List<String> commands = commands(Files.readString(ROOT.resolve("README.md")));
        assertThat(commands).contains("./bpf4j run examples/fib.data", "./bpf4j --help",
                "./bpf4j run it-tests/src/test/resources/objects/corpus/xdp_proto_count.o --data-in examples/pkt.bin --dump-maps");
        assertThat(commands).containsAll(ELSEWHERE.keySet());
        int ran = 0;
        for (String c : commands) {
            if (ELSEWHERE.containsKey(c)) continue;
            List<String> args = new ArrayList<>();
            for (String w : Arrays.asList(c.substring("./bpf4j ".length()).split(" +"))) {
                args.add(!w.startsWith("-") && !w.startsWith("/") && Files.exists(ROOT.resolve(w)) ? ROOT.resolve(w).toString() : w);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(status).as(c + "\n" + err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.size()).as(c).isPositive();
            if (c.equals("./bpf4j run examples/fib.data")) {
                assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("r0 = 2880067194370816120 (0x27f80ddaa1ba7878)\n");
            }
            if (c.contains("xdp_proto_count.o --data-in examples/pkt.bin")) {
                assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("retval: 2\n").contains("\"name\": \"proto_counts\"");
            }
            ran++;
        }
        assertThat(ran).isEqualTo(commands.size() - ELSEWHERE.size());
    }

    /** The clang command of README, verbatim where {@code clang} is installed, else with clang-14 (the version the objects are built with). */
    @Test
    void clangCommandBuildsAnObjectThatRuns() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher m = Pattern.compile("(?m)^clang .*$").matcher(readme);
        assertThat(m.find()).as("README shows a clang command").isTrue();
        String command = m.group();
        assertThat(command).contains("-I /usr/include/$(uname -m)-linux-gnu").contains("-o /tmp/xdp_proto_count.o");
        String clang = onPath("clang") ? "clang" : onPath("clang-14") ? "clang-14" : null;
        Assumptions.assumeTrue(clang != null, "skipped: neither clang nor clang-14 is installed");
        Process p = new ProcessBuilder("bash", "-c", clang + command.substring("clang".length())).directory(ROOT.toFile())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(output).isZero();
        byte[] packet = Files.readAllBytes(ROOT.resolve("examples/pkt.bin"));
        for (String engine : List.of("interp", "jit")) {
            try (BpfObject obj = BpfObject.open(Path.of("/tmp/xdp_proto_count.o")).load(engine)) {
                assertThat(obj.program("xdp_proto_count").run(RunOptions.packet(packet)).retval()).as(engine).isEqualTo(2);
            }
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
