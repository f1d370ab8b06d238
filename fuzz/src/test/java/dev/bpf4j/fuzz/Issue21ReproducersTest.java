package dev.bpf4j.fuzz;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.asm.Assembler;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The minimised mismatches the fuzzer found that belong to issue 21 (src/test/resources/issue21,
 * each file's comments say what each engine did): pointers used as numbers, registers read after a
 * call or never passed to a subprogram, accesses outside the own frame. Enable when the verifier of
 * issue 21 is the gate: each must then be rejected, or run identically on both engines.
 */
class Issue21ReproducersTest {
    @Test void everyIssue21ReproducerIsRejectedOrAgrees() throws URISyntaxException {
        Path dir = Path.of(Issue21ReproducersTest.class.getResource("/issue21").toURI());
        List<Path> files = CorpusFiles.collect(dir);
        assertThat(files).hasSizeGreaterThanOrEqualTo(10);
        List<String> disagreements = new ArrayList<>();
        for (Path f : files) {
            DataFile d = DataFile.read(f);
            FuzzCase c = new FuzzCase(f.getFileName().toString(), Assembler.assemble(d.asm().orElseThrow()), d.mem().orElse(null));
            DifferentialReport r = DifferentialHarness.inProcess().run(c);
            if (!r.agree()) disagreements.add(r.describe());
        }
        assertThat(disagreements).isEmpty();
    }
}
