package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.CpuPin;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A test run of a program that can tell CPUs apart stays on one CPU, as Linux's test run does with
 * migration disabled: a JVM thread that moved between two of its repeats once split a per-CPU count
 * over two slots, and {@code run --engine all} reported the engines different (CI, 2026-12-06). The
 * helper the program calls answers how many CPUs its thread may run on; a program that cannot tell
 * CPUs apart is not pinned, and the thread's affinity is given back after the run.
 */
class RunOnOneCpuTest {
    @ParameterizedTest
    @ValueSource(strings = {"interp", "jit", "jvm"})
    void aProgramWithPerCpuMapsRunsPinnedAndTheAffinityIsGivenBack(String engine) {
        int before = CpuPin.allowedCount();
        assumeTrue(before > 1, "this thread may run on " + before + " CPU(s): pinning cannot be seen");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        ObjectLoadOptions options = ObjectLoadOptions.engine(engine).withHelperExtras(b ->
                b.add(HelperIds.GET_SMP_PROCESSOR_ID, "bpf_get_smp_processor_id", (c, r1, r2, r3, r4, r5) -> {
                    seen.add(CpuPin.allowedCount());
                    return 0;
                }));
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("helpers_str.o")).load(options)) {
            obj.program("xdp_cpu_time").run(HelperCases.pkt(new byte[0], 0).withRepeat(3));
        }
        assertThat(seen).as("CPUs allowed during each of the three runs").containsExactly(1, 1, 1);
        assertThat(CpuPin.allowedCount()).as("after the run").isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"interp", "jit", "jvm"})
    void aProgramThatCannotTellCpusApartIsNotPinned(String engine) {
        int before = CpuPin.allowedCount();
        assumeTrue(before > 1, "this thread may run on " + before + " CPU(s): pinning cannot be seen");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        ObjectLoadOptions options = ObjectLoadOptions.engine(engine).withHelperExtras(b ->
                b.add(HelperIds.GET_CURRENT_PID_TGID, "bpf_get_current_pid_tgid", (c, r1, r2, r3, r4, r5) -> {
                    seen.add(CpuPin.allowedCount());
                    return 0;
                }));
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("helpers_task.o")).load(options)) {
            obj.program("task_ids").run(TaskCases.args(0, 0, 0, 0, 0));
        }
        assertThat(seen).containsExactly(before);
    }
}
