package dev.bpf4j.bench;

import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.KernelRejectedException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The kernel column's measurement: the kernel's r0 is checked, its timing is the kernel's own. */
class KernelTimingsTest {
    @Test void fnv1aInTheKernelAgreesAndIsTimed() {
        KernelBpf.Availability a = KernelBpf.availability();
        assumeTrue(a.available(), () -> "bpf() is not permitted here: " + a.reason());
        long expected = Agreement.require(Workload.FNV1A, null);
        try (DataBuffer data = new DataBuffer(Workload.FNV1A.input())) {
            KernelTimings.Result r = KernelTimings.measure("fnv1a", Workload.FNV1A.program(), data.context(), expected, 1, 5);
            assertThat(r.meanNs()).isPositive();
            assertThat(r.repeat()).isGreaterThan(1);
            assertThatThrownBy(() -> KernelTimings.measure("fnv1a", Workload.FNV1A.program(), data.context(), expected + 1, 1, 5))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("in the kernel returned");
        }
        // the parse workload's bounds checks compare two map-value pointers, which the verifier does not follow:
        // over its bare 64-byte packet it sees a possible read past the value; with the slack after it, it runs
        long parsed = Agreement.require(Workload.PARSE, null);
        byte[] packet = Workload.PARSE.input();
        try (DataBuffer bare = new DataBuffer(packet)) {
            assertThatThrownBy(() -> KernelTimings.measure("parse", Workload.PARSE.program(), bare.context(), parsed, 1, 5))
                    .isInstanceOf(KernelRejectedException.class).hasMessageContaining("outside of the allowed memory range");
        }
        try (DataBuffer padded = new DataBuffer(java.util.Arrays.copyOf(packet, packet.length + KernelTimings.SLACK))) {
            assertThat(KernelTimings.measure("parse", Workload.PARSE.program(), KernelTimings.context(padded, packet.length), parsed, 1, 5)
                    .meanNs()).isPositive();
        }
    }

    @Test void engineNamesLeaveTheKernelToKernelTimings() {
        assertThat(EngineParams.names()).doesNotContain(EngineParams.KERNEL).contains("interp");
    }
}
