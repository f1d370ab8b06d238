package dev.bpf4j.fuzz;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.kernel.KernelBpf;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bugs the fuzzer found and that are fixed (src/test/resources/regressions, objects included): both
 * engines, both runs, the expected r0; and where bpf() works, Linux runs each the same way (the files'
 * results are what Linux 6.18 gives).
 */
class FuzzRegressionTest {
    static List<String> engines() {
        List<String> e = new ArrayList<>(List.of("interp", "jit", "jvm"));
        KernelBpf.Availability k = KernelBpf.availability();
        if (k.available()) e.add("kernel");
        else System.out.println("FuzzRegressionTest: kernel skipped: " + k.reason());
        return e;
    }

    @Test void everyFixedFindingAgreesAndGivesItsResult() throws URISyntaxException {
        List<Path> files = CorpusFiles.collect(Path.of(FuzzRegressionTest.class.getResource("/regressions").toURI()));
        assertThat(files).hasSizeGreaterThanOrEqualTo(6);
        DifferentialHarness harness = DifferentialHarness.of(engines());
        for (Path f : files) {
            FuzzCase c = Reproducer.read(f);
            DifferentialReport r = harness.run(c);
            assertThat(r.agree()).as(r.describe()).isTrue();
            String expected = String.format("r0 = 0x%x", DataFile.read(f).result().getAsLong());
            for (EngineOutcome o : r.outcomes()) assertThat(o.first().ending()).as(f + " on " + o.engine()).isEqualTo(expected);
        }
    }
}
