package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.perf.PerfMapWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;

import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link LoadOptions#perfMap()} names every function and the stub block of a load in /tmp/perf-<pid>.map. */
class PerfMapLoadTest {
    /** The test JVM's perf map is a by-product: leave no file in /tmp (later writes go to the unlinked file). */
    @AfterAll static void removePerfMap() throws Exception { Files.deleteIfExists(PerfMapWriter.defaultPath()); }

    @Test void everyRegionOfAPerfMapLoadIsInTheProcessPerfMap() throws Exception {
        Program p = prog("perfmapped", mov64(1, 3), callLocal(1), exit(), mov64r(0, 1), exit());
        try (JitExecutable x = new JitLoader().load(p, LoadOptions.defaults().withPerfMap(true))) {
            assertThat(x.run(RunContext.builder().build())).isEqualTo(3);
            List<String> lines = Files.readAllLines(PerfMapWriter.defaultPath());
            assertThat(x.codeRegions()).hasSizeGreaterThanOrEqualTo(3);
            for (CodeRegion r : x.codeRegions()) {
                assertThat(lines).contains(String.format("%x %x %s", r.start(), r.size(), r.symbol()));
            }
            assertThat(x.codeRegions().get(0).symbol()).matches("bpf_prog_[0-9a-f]{16}_perfmapped");
            assertThat(x.codeRegions().get(1).symbol()).matches("bpf_prog_[0-9a-f]{16}_F");
        }
    }
}
