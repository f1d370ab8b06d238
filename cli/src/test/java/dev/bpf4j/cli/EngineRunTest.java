package dev.bpf4j.cli;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunResult;
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

    @Test void sumsAddLittleEndianWordsIncludingAShortLastOne() {
        assertThat(EngineRun.sum(List.of(new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 2}, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 1, 0})))
                .containsExactly(0, 1, 0, 0, 0, 0, 0, 0, 2, 2);
    }
}
