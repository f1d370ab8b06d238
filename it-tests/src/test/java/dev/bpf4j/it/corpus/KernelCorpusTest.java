package dev.bpf4j.it.corpus;

import dev.bpf4j.api.Engines;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The corpus in the Linux kernel ({@link KernelSide}: the object loaded by bpf4j-kernel's KernelObject
 * with BTF, func_info, maps, prog arrays and frozen .rodata as libbpf sets them up, runs through
 * BPF_PROG_TEST_RUN) against bpf4j's interpreter: retval, data_out, ctx_out and every map (queues and
 * stacks popped and pushed back, ring buffers drained). kprobe and perf_event programs are left out:
 * the kernel has no test run for them.
 */
class KernelCorpusTest {
    static List<CorpusCase> cases() {
        return Corpus.all().stream().filter(c -> {
            ProgramType t = BpfObjectSpec.read(c.path()).program(c.program()).type();
            return t != ProgramType.KPROBE && t != ProgramType.PERF_EVENT;
        }).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void kernelAgrees(CorpusCase c) {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        Outcome reference = CorpusDifferentialTest.outcome(c, Engines.byName("interp"));
        Outcome kernel = KernelSide.outcome(c);
        assertThat(kernel.runs()).as("%s runs: kernel vs interp", c).isEqualTo(reference.runs());
        assertThat(kernel.maps()).as("%s maps: kernel vs interp", c).isEqualTo(reference.maps());
    }
}
