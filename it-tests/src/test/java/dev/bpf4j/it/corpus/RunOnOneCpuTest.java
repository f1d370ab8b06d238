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
        int before = allowedHere();
        List<Integer> seen = cpusAllowedInRuns(engine, HelperIds.GET_SMP_PROCESSOR_ID, "bpf_get_smp_processor_id", "helpers_str.o",
                "xdp_cpu_time", HelperCases.pkt(new byte[0], 0).withRepeat(3));
        assertThat(seen).as("CPUs allowed during each of the three runs").containsExactly(1, 1, 1);
        assertThat(CpuPin.allowedCount()).as("after the run").isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"interp", "jit", "jvm"})
    void aProgramThatCannotTellCpusApartIsNotPinned(String engine) {
        int before = allowedHere();
        List<Integer> seen = cpusAllowedInRuns(engine, HelperIds.GET_CURRENT_PID_TGID, "bpf_get_current_pid_tgid", "helpers_task.o",
                "task_ids", TaskCases.args(0, 0, 0, 0, 0));
        assertThat(seen).containsExactly(before);
    }

    private static int allowedHere() {
        int n = CpuPin.allowedCount();
        assumeTrue(n > 1, "this thread may run on " + n + " CPU(s): pinning cannot be seen");
        return n;
    }

    /** Runs {@code program} of {@code object} with helper {@code id} answering how many CPUs its thread may run on; those answers. */
    private static List<Integer> cpusAllowedInRuns(String engine, int id, String helper, String object, String program, RunOptions run) {
        List<Integer> seen = new CopyOnWriteArrayList<>();
        ObjectLoadOptions options = ObjectLoadOptions.engine(engine).withHelperExtras(b -> b.add(id, helper, (c, r1, r2, r3, r4, r5) -> {
            seen.add(CpuPin.allowedCount());
            return 0;
        }));
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve(object)).load(options)) {
            obj.program(program).run(run);
        }
        return seen;
    }
}
