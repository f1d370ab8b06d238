package dev.bpf4j.fuzz;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.isa.Assembler;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Bugs the fuzzer found and that are fixed (src/test/resources/regressions): both engines, both runs, the expected r0. */
class FuzzRegressionTest {
    @Test void everyFixedFindingAgreesAndGivesItsResult() throws URISyntaxException {
        List<Path> files = CorpusFiles.collect(Path.of(FuzzRegressionTest.class.getResource("/regressions").toURI()));
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            DataFile d = DataFile.read(f);
            FuzzCase c = new FuzzCase(f.getFileName().toString(), Assembler.assemble(d.asm().orElseThrow()), d.mem().orElse(null));
            DifferentialReport r = DifferentialHarness.interpAndJit().run(c);
            assertThat(r.agree()).as(r.describe()).isTrue();
            for (EngineOutcome o : r.outcomes()) {
                assertThat(o.first().ending()).as(f + " on " + o.engine()).isEqualTo(String.format("r0 = 0x%x", d.result().getAsLong()));
            }
        }
    }
}
