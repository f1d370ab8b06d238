package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/** /tmp/perf-PID.map as the JVM (0x-prefixed, names with spaces) and bpf4j (bare hex) write it. */
class PerfMapFileTest {
    @Test
    void namesAnAddressInsideAnEntryAndNothingOutside(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("perf-1.map");
        Files.writeString(p, """
                0x00007f28c0f1bc20 0x00000000000000b8 long Spin.f(long)
                7f28c0f1bf20 338 bpf_prog_0123456789abcdef_main
                garbage line
                0x00007f28c0940b80 0x0000000000017de0 Interpreter
                """);
        PerfMapFile m = new PerfMapFile(p);
        assertThat(m.lookup(0x7f28c0f1bc20L)).isEqualTo(new FunctionSymbols.Hit("long Spin.f(long)", 0));
        assertThat(m.lookup(0x7f28c0f1bcd7L)).isEqualTo(new FunctionSymbols.Hit("long Spin.f(long)", 0xb7));
        assertThat(m.lookup(0x7f28c0f1bcd8L)).isNull();   // one past the end
        assertThat(m.lookup(0x7f28c0f1bf20L + 0x100).name()).isEqualTo("bpf_prog_0123456789abcdef_main");
        assertThat(m.lookup(0x7f28c0940b80L + 5).name()).isEqualTo("Interpreter");
        assertThat(m.lookup(0x1000)).isNull();
        assertThat(m.size()).isEqualTo(3);
    }

    @Test
    void aLaterLineForTheSameStartWinsAndARewrittenFileIsReadAgain(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("perf-2.map");
        Files.writeString(p, "1000 100 old\n1000 100 new\n");
        PerfMapFile m = new PerfMapFile(p);
        assertThat(m.lookup(0x1010).name()).isEqualTo("new");
        Files.writeString(p, "1000 100 new\n2000 10 later\n");
        Files.setLastModifiedTime(p, FileTime.fromMillis(Files.getLastModifiedTime(p).toMillis() + 5000));
        Thread.sleep(PerfMapFile.RECHECK_NANOS / 1_000_000 + 50);
        assertThat(m.lookup(0x2005).name()).isEqualTo("later");
    }

    @Test
    void aMissingFileNamesNothing(@TempDir Path dir) {
        assertThat(new PerfMapFile(dir.resolve("perf-3.map")).lookup(0x1000)).isNull();
    }
}
