package dev.bpf4j.api;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PerCpuValuesTest {
    @Test void sumsAddLittleEndianWordsIncludingAShortLastOne() {
        assertThat(PerCpuValues.sum(List.of(new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 2}, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 1, 0})))
                .containsExactly(0, 1, 0, 0, 0, 0, 0, 0, 2, 2);
    }

    @Test void aShortLastWordLosesItsCarryAsACounterOfThatSizeWould() {
        // two u32 counters at 0xffffffff and 1: a u32 wraps to 0
        assertThat(PerCpuValues.sum(List.of(new byte[] {-1, -1, -1, -1}, new byte[] {1, 0, 0, 0}))).containsExactly(0, 0, 0, 0);
    }

    @Test void oneCpuIsItsOwnSum() {
        byte[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        assertThat(PerCpuValues.sum(List.of(v))).containsExactly(v);
    }
}
