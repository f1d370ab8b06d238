package dev.bpf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Input named on the command line that is not there (issue 21, reproducer 5): one line naming what is missing,
 * exit 2, never "internal error". Objects come from it-tests' fixtures.
 */
class BadInputTest {
    static final Path OBJECTS = Path.of("../it-tests/src/test/resources/objects");
    static final String PROTO_COUNT = OBJECTS.resolve("corpus/xdp_proto_count.o").toString();
    static final String SHARED = OBJECTS.resolve("shared_subprog.o").toString();

    @TempDir Path dir;

    static void assertBadInput(CliRunner r, String... parts) {
        assertThat(r.status()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).doesNotContain("internal error").doesNotContain("usage:").contains(parts);
        assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    }

    @Test void anUnknownProgramNamesItAndTheProgramsThatExist() {
        for (String engine : new String[] {"interp", "jit", "all"}) {
            assertBadInput(CliRunner.run("run", PROTO_COUNT, "--program", "nope", "--engine", engine),
                    "no program 'nope' in the object (its programs: xdp_proto_count)");
        }
        assertBadInput(CliRunner.run("run", SHARED, "--program", "nope"), "(its programs: record_xdp, record_tc)");
    }

    @Test void aProgramNotLoadedByDefaultIsLoadedWhenNamedAndRunsTheSameOnBothEngines() throws Exception {
        Path pkt = dir.resolve("pkt.bin");
        Files.write(pkt, new byte[64]);
        CliRunner r = CliRunner.run("run", SHARED, "--program", "record_tc", "--engine", "all", "--data-in", pkt.toString(), "--dump-maps");
        assertThat(r.status()).as(r.err() + r.out()).isZero();
        assertThat(r.out()).contains("== interp", "== jit", "retval: 0").doesNotContain("== differences");
    }

    @Test void missingFilesAreNamed() {
        String missing = dir.resolve("missing").toString();
        assertBadInput(CliRunner.run("run", missing + ".o"), missing + ".o: no such file");
        assertBadInput(CliRunner.run("run", missing + ".data", "--engine", "all"), missing + ".data: no such file");
        assertBadInput(CliRunner.run("run", PROTO_COUNT, "--data-in", missing), missing + ": no such file");
        assertBadInput(CliRunner.run("run", PROTO_COUNT, "--ctx-in", dir.toString()), dir + ": is a directory");
        assertBadInput(CliRunner.run("disasm", missing + ".bin"), missing + ".bin: no such file");
        assertBadInput(CliRunner.run("asm", missing + ".s"), missing + ".s: no such file");
        assertBadInput(CliRunner.run("conformance", missing), "no such file or directory: " + missing);
    }

    @Test void aMissingMemoryFileIsNamed() throws Exception {
        Path f = dir.resolve("one.data");
        Files.writeString(f, "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        assertBadInput(CliRunner.run("run", f.toString(), "--mem", dir.resolve("m.hex").toString()), "m.hex: no such file");
    }
}
