package dev.bpf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ObjectFuzzCommandTest {
    static final Path OBJECTS = Path.of("../it-tests/src/test/resources/objects/corpus");

    @Test void aMutateObjectsCampaignPrintsItsSeedAndWhatOpenedLoadedAndRan() {
        CliRunner r = CliRunner.run("fuzz", "--mode", "mutate-objects", "--corpus", OBJECTS.toString(), "--seed", "7", "--count", "60");
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).containsPattern("fuzz mutate-objects seed 7 on \\[interp, jit, jvm\\] over \\d+ objects, 60 objects, 1 job\\(s\\)")
                .containsPattern("fuzz mutate-objects seed 7: 60 objects, \\d+/s, opened \\d+, loaded \\d+, ran \\d+ \\(\\d+ runs\\), "
                        + "mismatches 0, crashes 0, hangs 0 in ");
    }

    @Test void aCorpusWithoutObjectsOrWithTheKernelIsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("not-elf.o"), "hello");
        CliRunner r = CliRunner.run("fuzz", "--mode", "mutate-objects", "--corpus", dir.toString(), "--count", "5");
        assertThat(r.status()).isNotZero();
        assertThat(r.err()).contains("no usable ELF object among 1 files");
        assertThat(CliRunner.run("fuzz", "--mode", "mutate-objects", "--corpus", OBJECTS.toString(), "--count", "5", "--time", "1s").status())
                .isEqualTo(2);
    }
}
