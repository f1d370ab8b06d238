package dev.bpf4j.cli;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.SyscallErrno;
import dev.bpf4j.kernel.KernelBpfException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code run OBJ.o --engine all} prints and what it compares. */
class EngineRunTest {
    private static MapDump.Entry entry(int key, byte[]... perCpu) { return new MapDump.Entry(new byte[] {(byte) key, 0, 0, 0}, List.of(perCpu)); }

    @Test void perCpuMapsCompareBySumsSoTheCpuARunLandedOnDoesNotMatter() {
        byte[] three = {3, 0, 0, 0, 0, 0, 0, 0}, zero = new byte[8];
        EngineRun cpu0 = new EngineRun.Builder().result(new RunResult(2, null, null, 0)).map("pcpu", true, List.of(entry(0, three, zero))).build();
        EngineRun cpu1 = new EngineRun.Builder().result(new RunResult(2, null, null, 0)).map("pcpu", true, List.of(entry(0, zero, three))).build();
        assertThat(cpu0.lines()).isNotEqualTo(cpu1.lines());
        assertThat(cpu0.compared()).isEqualTo(cpu1.compared());
        assertThat(cpu0.lines().get(1)).startsWith("{\"name\": \"pcpu\", \"entries\": [{\"key\": [\"0x00\", \"0x00\", \"0x00\", \"0x00\"], \"values\": [{\"cpu\": 0, ");
        EngineRun four = new EngineRun.Builder().result(new RunResult(2, null, null, 0))
                .map("pcpu", true, List.of(entry(0, three, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}))).build();
        assertThat(four.compared()).isNotEqualTo(cpu0.compared());
    }

    @Test void otherMapsAndResultsCompareAsPrinted() {
        EngineRun r = new EngineRun.Builder().result(new RunResult(7, new byte[] {1, 2}, new byte[] {3}, 0))
                .map("m", false, List.of(entry(1, new byte[] {9}))).build();
        assertThat(r.lines()).containsExactly("retval: 7", "data_out: 0102", "ctx_out: 03",
                "{\"name\": \"m\", \"entries\": [{\"key\": [\"0x01\", \"0x00\", \"0x00\", \"0x00\"], \"value\": [\"0x09\"]}]}");
        assertThat(r.compared()).isEqualTo(r.lines());
    }

    @Test void theAverageDurationIsPrintedButNotCompared() {
        EngineRun fast = new EngineRun.Builder().result(new RunResult(2, new byte[] {1}, null, 12), true).build();
        EngineRun slow = new EngineRun.Builder().result(new RunResult(2, new byte[] {1}, null, 40), true).build();
        assertThat(fast.lines()).containsExactly("retval: 2", "data_out: 01", "duration (average): 12 ns");
        assertThat(fast.compared()).containsExactly("retval: 2", "data_out: 01").isEqualTo(slow.compared());
        assertThat(new EngineRun.Builder().result(new RunResult(2, null, null, 12)).build().lines()).containsExactly("retval: 2");
    }

    @Test void inputTheTestRunRefusesIsTheSameVerdictOnEveryEngine() {
        EngineRun ours = EngineRun.error(new IllegalArgumentException("p: an XDP run needs data_in of at least 14 bytes"));
        EngineRun kernel = EngineRun.error(new KernelBpfException("bpf(BPF_PROG_TEST_RUN)", SyscallErrno.EINVAL, null));
        assertThat(ours.lines()).containsExactly("error: p: an XDP run needs data_in of at least 14 bytes");
        assertThat(kernel.lines()).containsExactly("error: bpf(BPF_PROG_TEST_RUN) failed: EINVAL");
        assertThat(ours.compared()).isEqualTo(kernel.compared());
        assertThat(EngineRun.error(new KernelBpfException("bpf(BPF_PROG_TEST_RUN)", SyscallErrno.EFAULT, null)).compared()).isNotEqualTo(ours.compared());
        assertThat(EngineRun.error(new KernelBpfException("bpf(BPF_MAP_CREATE)", SyscallErrno.EINVAL, null)).compared()).isNotEqualTo(ours.compared());
    }
}
