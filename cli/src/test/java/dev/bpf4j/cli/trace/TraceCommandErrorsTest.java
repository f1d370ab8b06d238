package dev.bpf4j.cli.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.bpf4j.cli.trace.TraceCommandTest.trace;
import static org.assertj.core.api.Assertions.assertThat;

/** Bad input to {@code bpf4j trace}: a clear message and exit status 2, nothing attached, no crash. */
class TraceCommandErrorsTest {
    @TempDir Path dir;

    @Test
    void badLibrariesSymbolsAndEntries() throws IOException {
        String lib = TraceLib.path().toString();
        assertError(trace(dir.resolve("libnone.so").toString(), "--attach", "leaf", "--call", "drive"), "no such library: ");
        Path text = Files.writeString(dir.resolve("libtext.so"), "not an ELF file\n");
        assertError(trace(text.toString(), "--attach", "leaf", "--call", "drive"), "cannot load '" + text);
        assertError(trace(lib, "--attach", "nosuch", "--call", "drive"), "has no symbol 'nosuch'");
        assertError(trace(lib, "--attach", "leaf", "--call", "nosuch"), "has no symbol 'nosuch'");
        assertError(trace(lib, "--attach", "leaf,leaf", "--call", "drive"), "function 'leaf' given twice");
        // Nothing stayed attached: a later trace of the same functions works and counts from zero.
        var ok = trace(lib, "--attach", "leaf", "--call", "drive", "--arg", "1");
        assertThat(ok.status()).as(ok.err()).isZero();
        assertThat(ok.lines()).contains("drive;left;leaf 1", "drive;right;leaf 1");
    }

    @Test
    void badCommandLines() {
        String lib = TraceLib.path().toString();
        assertError(trace(lib, "--call", "drive"), "missing --attach");
        assertError(trace(lib, "--attach", "leaf"), "missing --call");
        assertError(trace(lib, "--attach", "leaf", "--call", "drive", "--arg", "ten"), "--arg needs an integer");
        assertError(trace(lib, "--attach", "leaf", "--call", "drive", "--engine", "kernel"), "unknown engine 'kernel'");
        assertError(trace(lib, "--attach", "leaf", "--call", "drive", "--program", "p"), "--program needs --object");
        assertError(trace(lib, "--attach", "leaf", "--call", "drive", "--object", dir.resolve("none.o").toString()), "no such object");
        assertError(trace("--attach", "leaf", "--call", "drive"), "missing LIB.so");
    }

    @Test
    void aUserObjectHasItsMapsDumpedAndItsStacksFolded() throws IOException {
        Path obj = dir.resolve("mycount.o");
        try (InputStream in = StackCount.class.getResourceAsStream("stackcount.o")) {
            Files.write(obj, in.readAllBytes());
        }
        var r = trace(TraceLib.path().toString(), "--attach", "right", "--call", "drive", "--arg", "2",
                "--object", obj.toString(), "--program", "stackcount", "--engine", "both");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.lines()).filteredOn(l -> !l.startsWith("{")).containsExactly("== interp", "drive;right 2", "== jit", "drive;right 2",
                TraceCommandTest.AGREE);
        // bpftool-style dumps of both maps per engine: the stack map (no lookup-able values) and the counts.
        assertThat(r.lines()).filteredOn(l -> l.startsWith("{\"name\": \"stacks\"")).hasSize(2);
        assertThat(r.lines()).filteredOn(l -> l.startsWith("{\"name\": \"counts\"")).hasSize(2)
                .allMatch(l -> l.contains("\"value\": [\"0x02\", \"0x00\""));
        assertError(trace(TraceLib.path().toString(), "--attach", "right", "--call", "drive", "--object", obj.toString(), "--program", "nope"),
                "no program 'nope'");
    }

    private static void assertError(TraceCommandTest.Run r, String message) {
        assertThat(r.status()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).contains(message);
    }
}
