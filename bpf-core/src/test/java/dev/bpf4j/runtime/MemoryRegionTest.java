package dev.bpf4j.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryRegionTest {
    private static final MemoryRegion A = new MemoryRegion("a", 0x1000, 64, false);

    @Test
    void sameRegionsComparesEveryFieldInOrder() {
        List<MemoryRegion> one = List.of(A);
        assertThat(MemoryRegion.sameRegions(one, one)).isTrue();
        assertThat(MemoryRegion.sameRegions(one, new ArrayList<>(List.of(new MemoryRegion("a", 0x1000, 64, false))))).isTrue();
        assertThat(MemoryRegion.sameRegions(List.of(), List.of())).isTrue();
        for (MemoryRegion other : List.of(new MemoryRegion("b", 0x1000, 64, false), new MemoryRegion("a", 0x1008, 64, false),
                new MemoryRegion("a", 0x1000, 56, false), new MemoryRegion("a", 0x1000, 64, true))) {
            assertThat(MemoryRegion.sameRegions(one, List.of(other))).as(other.toString()).isFalse();
        }
        MemoryRegion b = new MemoryRegion("b", 0x2000, 8, true);
        assertThat(MemoryRegion.sameRegions(List.of(A, b), List.of(b, A))).as("order").isFalse();
        assertThat(MemoryRegion.sameRegions(one, List.of(A, b))).as("length").isFalse();
        assertThat(MemoryRegion.sameRegions(one, null)).as("nothing bound yet").isFalse();
        assertThat(MemoryRegion.sameRegions(null, one)).isFalse();
    }
}
