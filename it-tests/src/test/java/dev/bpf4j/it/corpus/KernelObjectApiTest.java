package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.KernelEngine;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfNotFoundException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kernel through the object API (issue 25, point 1): {@code BpfObject.load("kernel")} is refused at
 * load, naming {@link KernelObject}, and that alternative runs the same clang object in Linux with the
 * same result as bpf4j's engines.
 */
class KernelObjectApiTest {
    private static final Path OBJECT = Path.of("src/test/resources/objects/corpus/xdp_proto_count.o");

    @Test
    void loadOnTheKernelEngineIsRefusedNamingTheAlternative() {
        Assumptions.assumeTrue(KernelSide.onClassPath(), "skipped: bpf4j-kernel is not on this execution's class path");
        Kernel.refusal();
    }

    @Test
    void kernelObjectRunsTheSameObjectAsTheEngines() {
        Assumptions.assumeTrue(KernelSide.onClassPath(), "skipped: bpf4j-kernel is not on this execution's class path");
        Kernel.sameAsEngines();
    }

    /** Every bpf4j-kernel type is behind this class, so the test class loads (and skips) without bpf4j-kernel. */
    private static final class Kernel {
        static void refusal() {
            // The refusal does not need bpf(): it comes before any map or program is made.
            assertThatThrownBy(() -> BpfObject.open(OBJECT).load(ObjectLoadOptions.engine(new KernelEngine())))
                    .isInstanceOf(BpfLoadException.class)
                    .hasMessageContaining("object 'xdp_proto_count'")
                    .hasMessageContaining("KernelObject.load")
                    .hasMessageContaining("--engine kernel");
        }

        static void sameAsEngines() {
            KernelBpf.Availability a = KernelBpf.availability();
            Assumptions.assumeTrue(a.available(), () -> "skipped: bpf() is refused here: " + a.reason());
            byte[] packet = new byte[64];
            packet[12] = 0x08;
            BpfObjectSpec spec = BpfObjectSpec.read(OBJECT);
            long kernelRetval;
            byte[] kernelValue;
            try (KernelObject k = KernelObject.load(spec, List.of("xdp_proto_count"))) {
                kernelRetval = k.run("xdp_proto_count", RunOptions.packet(packet)).retval();
                kernelValue = k.dump().get("proto_counts").stream().filter(e -> e.key()[0] == 0).findFirst().orElseThrow().values().get(0);
                assertThatThrownBy(() -> k.run("nope", RunOptions.packet(packet))).isInstanceOf(BpfNotFoundException.class)
                        .hasMessageContaining("loaded: xdp_proto_count");
                assertThatThrownBy(() -> k.mapFd("nope")).isInstanceOf(BpfNotFoundException.class).hasMessageContaining("proto_counts");
            }
            for (String engine : List.of("interp", "jit")) {
                try (BpfObject obj = BpfObject.open(spec).load(engine)) {
                    RunResult r = obj.program("xdp_proto_count").run(RunOptions.packet(packet));
                    assertThat(r.retval()).as(engine).isEqualTo(kernelRetval).isEqualTo(2);
                    assertThat(obj.map("proto_counts").lookup(new byte[4]).orElseThrow()).as(engine).isEqualTo(kernelValue);
                }
            }
        }
    }
}
