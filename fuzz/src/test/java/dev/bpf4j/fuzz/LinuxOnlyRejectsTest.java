package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Programs the fuzzer found that Linux refused and bpf4j accepted, fixed since
 * (src/test/resources/linux-only): bpf4j's verifier must now refuse each at the pc and with the words its
 * {@code # bpf4j: pc N: reason} line gives, before either engine sees it; and where bpf() works, Linux must
 * still refuse it (the verdict is "both reject").
 */
class LinuxOnlyRejectsTest {
    @Test void everyFormerLinuxOnlyRejectIsRefusedByBothVerifiers() throws Exception {
        List<Path> files = CorpusFiles.collect(Path.of(LinuxOnlyRejectsTest.class.getResource("/linux-only").toURI()));
        assertThat(files).isNotEmpty();
        DifferentialHarness harness = DifferentialHarness.of(FuzzRegressionTest.engines());
        for (Path f : files) {
            String expected = expectation(f);
            DifferentialReport r = harness.run(Reproducer.read(f));
            assertThat(r.agree()).as(r.describe()).isTrue();
            for (EngineOutcome o : r.outcomes()) {
                assertThat(o.verdict()).as(f.getFileName() + " on " + o.engine() + "\n" + r.describe()).isEqualTo(Observation.Verdict.REJECTED);
                System.out.println(f.getFileName() + " on " + o.engine() + ": " + o.first().message());
                if (!o.engine().equals(Oracle.KERNEL)) {
                    assertThat(o.first().message()).as(f.getFileName() + " on " + o.engine()).contains(expected);
                }
            }
        }
    }

    /** The {@code # bpf4j: } line: the pc and reason bpf4j's verifier must give. */
    private static String expectation(Path f) throws java.io.IOException {
        return Files.readAllLines(f).stream().filter(l -> l.startsWith("# bpf4j: ")).findFirst()
                .map(l -> l.substring("# bpf4j: ".length()).strip())
                .orElseThrow(() -> new AssertionError(f + " has no '# bpf4j: pc N: reason' line"));
    }
}
