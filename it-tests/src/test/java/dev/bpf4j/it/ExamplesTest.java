package dev.bpf4j.it;

import dev.bpf4j.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The bundled examples run through the CLI exactly as README.md shows. */
class ExamplesTest {
    @TempDir Path tmp;

    private static String cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(status).as("exit status of bpf4j " + String.join(" ", args)).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void fibDemo() {
        assertThat(cli("run", "../examples/fib.data")).isEqualTo("r0 = 2880067194370816120 (0x27f80ddaa1ba7878)\n");
    }

    @Test
    void sumAssemblesAndRuns() {
        assertThat(cli("run", "../examples/sum.s")).isEqualTo("r0 = 5050 (0x13ba)\n");
        Path bin = tmp.resolve("sum.bin");
        cli("asm", "../examples/sum.s", "-o", bin.toString());
        assertThat(cli("run", bin.toString(), "--engine", "all")).contains("r0 = 5050 (0x13ba)");
    }

    /** README's trace example: the gcc command and the output block, verbatim. */
    @Test
    void traceExampleGivesTheReadmeOutput() throws java.io.IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.bpf4j.jit.probe.PatchableLibrary.gccAvailable(), "gcc is not installed");
        String readme = java.nio.file.Files.readString(Path.of("../README.md"));
        String command = "./bpf4j trace /tmp/libcalls.so --attach leaf --call drive --arg 3 --engine all\n";
        int at = readme.indexOf(command);
        assertThat(at).as("README shows the trace example").isPositive();
        String expected = readme.substring(at + command.length(), readme.indexOf("```", at));
        assertThat(readme).contains("gcc " + String.join(" ", dev.bpf4j.jit.probe.PatchableLibrary.FLAGS) + " -o /tmp/libcalls.so examples/calls.c");
        Path lib = dev.bpf4j.jit.probe.PatchableLibrary.build("calls", java.nio.file.Files.readString(Path.of("../examples/calls.c")), List.of());
        assertThat(cli("trace", lib.toString(), "--attach", "leaf", "--call", "drive", "--arg", "3", "--engine", "all")).isEqualTo(expected);
    }
}
