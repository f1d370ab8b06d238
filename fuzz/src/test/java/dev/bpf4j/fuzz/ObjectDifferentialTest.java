package dev.bpf4j.fuzz;

import dev.bpf4j.api.Engines;
import dev.bpf4j.isa.Opcodes;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ObjectDifferentialTest {
    private static byte[] bytes(String name) throws Exception { return Files.readAllBytes(ObjectMutatorTest.OBJECTS.resolve(name)); }

    /** Every committed object loads and agrees: the replay of {@link ObjectLoaderFuzzTest}'s inputs. This one must run. */
    @Test void aCorpusObjectLoadsRunsAndAgrees() throws Exception {
        ObjectReport r = ObjectDifferential.inProcess().run(bytes("xdp_multi.o"), "xdp_multi.o");
        assertThat(r.agree()).as(r.describe()).isTrue();
        assertThat(r.ran()).isTrue();
        assertThat(r.outcomes().get(0).programsRun()).isPositive();
        assertThat(r.outcomes().get(1).lines()).anyMatch(l -> l.contains("retval="));
    }

    @Test void aTruncatedObjectFailsToOpenWithItsReason() throws Exception {
        byte[] xdp = bytes("xdp_multi.o");
        ObjectReport r = ObjectDifferential.inProcess().run(Arrays.copyOf(xdp, 100), "truncated");
        assertThat(r.agree()).isTrue();
        assertThat(r.opened()).isFalse();
        assertThat(r.openError()).isNotBlank();
        assertThat(r.outcomes()).isEmpty();
    }

    /** An engine that flips r0 in programs with an exit (all of them) is caught as an object-run difference. */
    @Test void anEngineThatDiffersIsReported() throws Exception {
        ObjectDifferential d = new ObjectDifferential(List.of(Engines.byName("interp"), new FlipR0Engine(Engines.byName("interp"),
                Opcodes.JMP | Opcodes.EXIT)));
        ObjectReport r = d.run(bytes("xdp_multi.o"), "xdp_multi.o");
        assertThat(r.agree()).isFalse();
        assertThat(r.mismatchClass()).isEqualTo("object-run");
        assertThat(r.describe()).contains("retval=");
    }
}
