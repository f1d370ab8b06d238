package dev.bpf4j.it.corpus;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.BpfException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The corpus in the Linux kernel ({@link KernelObject}, BPF_PROG_TEST_RUN) against bpf4j's
 * interpreter: retval, data_out, ctx_out and every map the kernel lets us read without consuming it.
 * kprobe and perf_event programs are left out: the kernel has no test run for them.
 */
class KernelCorpusTest {
    static List<CorpusCase> cases() {
        return Corpus.all().stream().filter(c -> {
            ProgramType t = BpfObjectSpec.read(c.path()).program(c.program()).type();
            return t != ProgramType.KPROBE && t != ProgramType.PERF_EVENT;
        }).toList();
    }

    /** Cases the harness cannot load into the kernel yet, and why. */
    static final Map<String, String> KERNEL_GAPS = Map.of("syscall_snprintf/format_msg",
            "bpf_snprintf needs its format in a frozen read-only map, and bpf-kernel has no BPF_MAP_FREEZE yet",
            "tail_calls/tail_entry", "KernelObject loads one program; prog-array slots need every target loaded",
            "callbacks_loop/loop_squares", "KernelObject loads no func_info; the kernel wants it for callbacks",
            "callbacks_loop/each_square", "KernelObject loads no func_info; the kernel wants it for callbacks");

    /** The kernel verifier refuses what bpf4j's load-time spin lock check refuses, for the same reason. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lock_no_btf", "lock_no_field", "lock_wrong_off", "lock_no_unlock", "lock_call_inside", "unlock_only"})
    void spinLockRefusalsMatchTheKernel(String program) {
        assumeTrue(KernelObject.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelObject.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        BpfObjectSpec spec = SpinLockObjectTest.onlyProgram(program);
        Throwable kernel = catchThrowable(() -> new KernelObject(spec, program).close());
        assertThat(kernel).as("the kernel refuses %s", program).isNotNull();
        BpfLoadException ours = catchThrowableOfType(() -> BpfObject.open(spec).load("interp"), BpfLoadException.class);
        assertThat(ours).as("bpf4j refuses %s as the kernel does: %s", program, kernel.getMessage()).isNotNull();
        String reason = ours.getMessage().substring(ours.getMessage().lastIndexOf("): ") + 3).replaceFirst("^bpf_spin_(un)?lock: ", "");
        assertThat(kernel.getMessage()).as("bpf4j: %s", ours.getMessage()).contains(reason);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void kernelAgrees(CorpusCase c) {
        assumeTrue(KernelObject.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        assumeTrue(!KERNEL_GAPS.containsKey(c.toString()), () -> KERNEL_GAPS.get(c.toString()));
        String refused = KernelObject.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        Outcome reference = CorpusDifferentialTest.outcome(c, Engines.byName("interp"));
        Map<String, List<String>> refMaps = new LinkedHashMap<>(reference.maps());
        BpfObjectSpec spec = BpfObjectSpec.read(c.path());
        spec.maps().stream().filter(m -> !KernelObject.dumpable(m.type())).forEach(m -> refMaps.remove(m.name()));
        try (KernelObject k = new KernelObject(spec, c.program())) {
            List<String> runs = new ArrayList<>();
            for (RunOptions o : c.runs()) {
                try {
                    RunResult r = k.run(c.program(), o);
                    runs.add("retval=" + r.retval() + (r.dataOut() == null ? "" : " data_out=" + HexFormat.of().formatHex(r.dataOut()))
                            + (r.ctxOut() == null ? "" : " ctx_out=" + HexFormat.of().formatHex(r.ctxOut())));
                } catch (BpfException e) {
                    runs.add("error " + e.getMessage());
                }
            }
            assertThat(runs).as("%s runs: kernel vs interp", c).isEqualTo(reference.runs());
            assertThat(k.dump()).as("%s maps: kernel vs interp", c).isEqualTo(refMaps);
        }
    }
}
