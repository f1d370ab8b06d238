package dev.bpf4j.cli.trace;

import dev.bpf4j.cli.Main;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf4j trace} through {@link Main}, as a user runs it, on {@link TraceLib}: the exact folded
 * stacks and counts worked out by hand from the call tree, under both engines, which must agree on
 * every stack id, frame and count.
 */
class TraceCommandTest {
    /** leaf's stacks under drive(3): i = 0..2 through left and right, rec(2) from left, rec(1) from drive. */
    static final List<String> LEAF = List.of(
            "drive;left;leaf 3",
            "drive;left;rec;rec;rec;leaf 3",
            "drive;rec;rec;leaf 1",
            "drive;right;leaf 3");
    static final List<String> REC = List.of(
            "drive;left;rec 3",
            "drive;left;rec;rec 3",
            "drive;left;rec;rec;rec 3",
            "drive;rec 1",
            "drive;rec;rec 1");
    static final String AGREE = "== engines agree: same stack ids, frames and counts, same return value and hits";

    record Run(int status, String out, String err) {
        List<String> lines() { return out.lines().toList(); }
    }

    static Run trace(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        List<String> argv = new ArrayList<>(List.of("trace"));
        argv.addAll(List.of(args));
        int status = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void perfMapNamesTheTracingProgram() throws Exception {
        Run r = trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--arg", "1", "--engine", "jit", "--perf-map");
        assertThat(r.status()).as(r.err()).isZero();
        java.nio.file.Path map = dev.bpf4j.unwind.perf.PerfMapWriter.defaultPath();
        assertThat(r.err()).contains("perf map: " + map);
        assertThat(java.nio.file.Files.readAllLines(map)).anySatisfy(l -> assertThat(l).matches("[0-9a-f]+ [0-9a-f]+ bpf_prog_[0-9a-f]{16}_stackcount"));
    }

    @Test
    void foldedStacksOfLeafUnderBothEngines() {
        Run r = trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--arg", "3", "--engine", "both");
        assertThat(r.status()).as(r.err()).isZero();
        List<String> expected = new ArrayList<>(List.of("== interp"));
        expected.addAll(LEAF);
        expected.add("== jit");
        expected.addAll(LEAF);
        expected.add(AGREE);
        assertThat(r.lines()).containsExactlyElementsOf(expected);
        assertThat(r.err()).contains("interp: drive(3) = " + TraceLib.drive(3) + "; leaf: 10 hits, 0 errors, 0 missed")
                .contains("jit: drive(3) = " + TraceLib.drive(3) + "; leaf: 10 hits, 0 errors, 0 missed");
        everyStackEndsInATracedFunctionBelowItsParent(r, Set.of("leaf"));
    }

    @Test
    void twoFunctionsAtOnce() {
        Run r = trace(TraceLib.path().toString(), "--attach", "leaf,rec", "--call", "drive", "--arg", "3", "--engine", "both");
        assertThat(r.status()).as(r.err()).isZero();
        List<String> both = new ArrayList<>(LEAF);
        both.addAll(REC);
        both.sort(null);
        List<String> expected = new ArrayList<>(List.of("== interp"));
        expected.addAll(both);
        expected.add("== jit");
        expected.addAll(both);
        expected.add(AGREE);
        assertThat(r.lines()).containsExactlyElementsOf(expected);
        assertThat(r.err()).contains("leaf: 10 hits, 0 errors", "rec: 11 hits, 0 errors");
        everyStackEndsInATracedFunctionBelowItsParent(r, Set.of("leaf", "rec"));
    }

    @Test
    void oneEngineAndTheEntryItself() {
        Run r = trace(TraceLib.path().toString(), "--attach", "drive", "--call", "drive", "--engine", "jit");
        assertThat(r.status()).as(r.err()).isZero();
        // The root of every stack is the entry: drive's own hit is a one-frame stack.
        assertThat(r.lines()).containsExactly("== jit", "drive 1");
        assertThat(r.err()).contains("jit: drive(0) = 2; drive: 1 hits");
    }

    /** Stackcount at leaf's return: leaf's entry stacks without leaf (they start at the return site in its caller), on both engines. */
    @Test
    void attachReturn() {
        Run r = trace(TraceLib.path().toString(), "--attach-return", "leaf", "--call", "drive", "--arg", "3", "--engine", "both");
        assertThat(r.status()).as(r.err()).isZero();
        List<String> atReturn = List.of("drive;left 3", "drive;left;rec;rec;rec 3", "drive;rec;rec 1", "drive;right 3");
        List<String> lines = r.lines();
        assertThat(lines.get(0)).isEqualTo("== interp");
        assertThat(lines.subList(1, 5)).containsExactlyInAnyOrderElementsOf(atReturn);
        assertThat(lines.get(5)).isEqualTo("== jit");
        assertThat(lines.subList(6, 10)).isEqualTo(lines.subList(1, 5));
        assertThat(lines.subList(10, lines.size())).containsExactly(AGREE);
        assertThat(r.err()).contains("interp: drive(3) = " + TraceLib.drive(3) + "; leaf (return): 10 hits, 0 errors, 0 missed")
                .contains("jit: drive(3) = " + TraceLib.drive(3) + "; leaf (return): 10 hits, 0 errors, 0 missed");
    }

    private static void everyStackEndsInATracedFunctionBelowItsParent(Run r, Set<String> traced) {
        for (String line : r.lines()) {
            if (line.startsWith("==")) continue;
            String[] frames = line.substring(0, line.lastIndexOf(' ')).split(";");
            assertThat(frames.length).as(line).isGreaterThanOrEqualTo(2);
            assertThat(traced).as(line).contains(frames[frames.length - 1]);
            assertThat(frames[0]).as(line).isEqualTo("drive");
        }
    }

    /** {@code -j}: the same stacks as a JSON document per engine, frames root first, and the verdict; {@code all} names both engines. */
    @Test
    void jsonOutputUnderAllEngines() {
        Run r = trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--arg", "3", "--engine", "all", "-j");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(1);
        com.google.gson.JsonObject doc = com.google.gson.JsonParser.parseString(r.out()).getAsJsonObject();
        assertThat(doc.get("call").getAsString()).isEqualTo("drive");
        assertThat(doc.get("agree").getAsBoolean()).isTrue();
        List<String> engines = new ArrayList<>();
        for (var run : doc.getAsJsonArray("runs")) {
            com.google.gson.JsonObject o = run.getAsJsonObject();
            engines.add(o.get("engine").getAsString());
            List<String> folded = new ArrayList<>();
            for (var st : o.getAsJsonArray("stacks")) {
                com.google.gson.JsonObject x = st.getAsJsonObject();
                List<String> frames = new ArrayList<>();
                x.getAsJsonArray("frames").forEach(f -> frames.add(f.getAsString()));
                assertThat(String.join(";", frames)).isEqualTo(x.get("folded").getAsString());
                folded.add(x.get("folded").getAsString() + " " + x.get("count").getAsLong());
            }
            // stacks are per id; the folded lines add ids with the same frames
            assertThat(folded).containsExactlyInAnyOrderElementsOf(LEAF);
        }
        assertThat(engines).containsExactly("interp", "jit");
        assertThat(r.err()).doesNotContain("deprecated");
        assertThat(trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--engine", "both").err())
                .contains("--engine both is deprecated: use --engine all");
    }
}
