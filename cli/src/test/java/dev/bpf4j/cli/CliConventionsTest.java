package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user of any conventional command line expects of {@code bpf4j} (issue 25, point 6): per-option
 * help with defaults, {@code --version}, {@code -j} JSON, {@code -} for standard input, exit 2 and one
 * line saying what is wrong for every usage error.
 */
class CliConventionsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String FIB = ROOT.resolve("examples/fib.data").toString();
    static final String XDP = ROOT.resolve("it-tests/src/test/resources/objects/corpus/xdp_proto_count.o").toString();
    static final long FIB_R0 = 2880067194370816120L;

    private static CliRunner run(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(List.of(args), new ByteArrayInputStream(stdin), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CliRunner(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static JsonObject json(CliRunner r) {
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out().lines()).as("one JSON document on one line").hasSize(1);
        return JsonParser.parseString(r.out()).getAsJsonObject();
    }

    @Test
    void versionAndPerOptionHelpWithDefaults() {
        CliRunner v = CliRunner.run("--version");
        assertThat(v.status()).isZero();
        assertThat(v.out()).startsWith("bpf4j 0.1.0-SNAPSHOT\n").contains("JVM: ");
        assertThat(CliRunner.run("run", "--version").out()).startsWith("bpf4j 0.1.0-SNAPSHOT");
        for (String cmd : List.of("run", "conformance")) {
            CliRunner h = CliRunner.run(cmd, "--help");
            assertThat(h.status()).isZero();
            assertThat(flat(h.out())).contains("--engine=ENGINE").contains("(default: interp)").contains("-j, --json").contains("-h, --help");
        }
        assertThat(flat(CliRunner.run("trace", "--help").out())).contains("interp, jit or all").contains("(default: interp)");
        assertThat(flat(CliRunner.run("profile", "--help").out())).contains("(default: jit)");
        assertThat(CliRunner.run("help", "asm").out()).contains("-o, --output=OUT.bin");
        assertThat(flat(CliRunner.run("--help").out())).contains("BPF4J_OPTS").contains("Exit status");
    }

    /** Help text with its line wrapping undone. */
    private static String flat(String help) { return help.replaceAll("\\s+", " "); }

    @Test
    void usageErrorsExit2WithOneLineSayingWhat() {
        assertUsage(CliRunner.run("run", "nope.o"), "nope.o: no such file");
        assertUsage(CliRunner.run("run", XDP, "--program", "nope"), "no program 'nope' in the object (its programs: xdp_proto_count)");
        assertUsage(CliRunner.run("run", FIB, "--engine"), "option '--engine' needs a value");
        assertUsage(CliRunner.run("run", FIB, "--engine", "jit", "--engine", "interp"), "option '--engine' given twice");
        assertUsage(CliRunner.run("run", FIB, "--frobnicate"), "unknown option '--frobnicate'");
        assertUsage(CliRunner.run("run", FIB, "--program", "x"), "--program is for objects (OBJ.o)");
        assertUsage(CliRunner.run("run", XDP, "--mem", FIB), "--mem is for FILE programs");
        assertUsage(CliRunner.run("frobnicate"), "unknown command 'frobnicate'");
        assertUsage(run(new byte[0], "run", "-", "--mem", "-"), "standard input ('-') given twice");
        assertUsage(run("mov %r0, 1\nexit\n".getBytes(StandardCharsets.UTF_8), "asm", "-"), "give -o OUT.bin");
    }

    /** {@code --name=value}, a value that starts with a dash, and {@code --} before a positional. */
    @Test
    void valueFormsAndNegativeNumbers() {
        assertThat(CliRunner.run("run", "--engine=jit", FIB).out()).contains(Long.toString(FIB_R0));
        assertThat(CliRunner.run("run", "--engine", "jit", "--", FIB).out()).contains(Long.toString(FIB_R0));
        CliRunner fuzz = CliRunner.run("fuzz", "--seed", "-5", "--count", "3");
        assertThat(fuzz.status()).as(fuzz.err()).isZero();
        assertThat(fuzz.out() + fuzz.err()).contains("-5");
    }

    private static void assertUsage(CliRunner r, String what) {
        assertThat(r.status()).as(r.err()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElse("")).as(r.err()).contains(what);
        assertThat(r.err()).doesNotContain("internal error").doesNotContain("Exception");
    }

    @Test
    void runJsonOnOneAndOnAllEngines() {
        JsonObject one = json(CliRunner.run("run", FIB, "-j"));
        assertThat(one.get("engine").getAsString()).isEqualTo("interp");
        assertThat(one.get("r0").getAsLong()).isEqualTo(FIB_R0);
        assertThat(one.get("r0_hex").getAsString()).isEqualTo(String.format("0x%x", FIB_R0));
        JsonObject all = json(CliRunner.run("run", FIB, "--engine", "all", "--json"));
        assertThat(all.get("agree").getAsBoolean()).isTrue();
        JsonArray runs = all.getAsJsonArray("runs");
        assertThat(runs.get(0).getAsJsonObject().get("engine").getAsString()).isEqualTo("interp");
        assertThat(runs.get(1).getAsJsonObject().get("engine").getAsString()).isEqualTo("jit");
        for (var r : runs) {
            JsonObject o = r.getAsJsonObject();
            if (!o.has("skipped")) assertThat(o.get("r0").getAsLong()).as(o.toString()).isEqualTo(FIB_R0);
        }
    }

    @Test
    void objectRunJsonHasRetvalPacketAndMaps() {
        byte[] packet = new byte[64];
        packet[12] = 0x08;
        JsonObject doc = json(run(packet, "run", XDP, "--data-in", "-", "--dump-maps", "-j", "--engine", "jit"));
        assertThat(doc.get("program").getAsString()).isEqualTo("xdp_proto_count");
        assertThat(doc.get("engine").getAsString()).isEqualTo("jit");
        assertThat(doc.get("retval").getAsLong()).isEqualTo(2);
        assertThat(doc.get("data_out").getAsString()).hasSize(128);
        assertThat(doc.getAsJsonArray("maps").get(0).getAsJsonObject().get("name").getAsString()).isEqualTo("proto_counts");
        // interp and jit, compared: no differences
        JsonObject both = json(run(packet, "run", XDP, "--data-in", "-", "-j", "--engine", "all"));
        assertThat(both.getAsJsonArray("differences")).isEmpty();
        assertThat(both.getAsJsonArray("runs").size()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void standardInputStandsInForFiles() throws Exception {
        byte[] fib = Files.readAllBytes(Path.of(FIB));
        assertThat(run(fib, "run", "-").out()).isEqualTo(String.format("r0 = %d (0x%x)%n", FIB_R0, FIB_R0));
        byte[] object = Files.readAllBytes(Path.of(XDP));
        assertThat(run(object, "disasm", "-").out()).contains("xdp_proto_count").contains("map[proto_counts]");
        assertThat(run("mov %r0, 7\nexit\n".getBytes(StandardCharsets.UTF_8), "run", "-").out()).isEqualTo("r0 = 7 (0x7)\n");
        JsonObject c = json(run(fib, "conformance", "-", "-j"));
        assertThat(c.get("passed").getAsLong()).isEqualTo(1);
    }

    @Test
    void conformanceJsonCountsAndListsEveryFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ok.data"), "-- asm\nmov %r0, 3\nexit\n-- result\n0x3\n");
        Files.writeString(dir.resolve("bad.data"), "-- asm\nmov %r0, 4\nexit\n-- result\n0x3\n");
        CliRunner r = CliRunner.run("conformance", dir.toString(), "-j", "--engine", "all");
        assertThat(r.status()).isEqualTo(1);
        JsonObject doc = JsonParser.parseString(r.out()).getAsJsonObject();
        assertThat(doc.get("passed").getAsLong()).isEqualTo(1);
        assertThat(doc.get("failed").getAsLong()).isEqualTo(1);
        JsonArray files = doc.getAsJsonArray("files");
        assertThat(files).hasSize(2);
        for (var f : files) {
            JsonObject o = f.getAsJsonObject();
            boolean bad = o.get("file").getAsString().endsWith("bad.data");
            assertThat(o.get("status").getAsString()).isEqualTo(bad ? "failed" : "passed");
            if (bad) assertThat(o.get("reason").getAsString()).isNotEmpty();
            for (var e : o.getAsJsonArray("engines")) {
                JsonObject x = e.getAsJsonObject();
                if (!x.has("skipped")) assertThat(x.get("r0").getAsLong()).isEqualTo(bad ? 4 : 3);
            }
        }
    }
}
