package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.CodeRegion;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The exactness rule with outer frames: the chain, then the outer frames in order, then out of them all. */
class ChainAccuracyTest {
    private static CodeRegion fn(String name, long start) {
        return new CodeRegion(start, 0x100, name, "test", List.of());
    }

    @Test
    void theOuterFramesMustFollowMainInOrderThenLeave() {
        List<CodeRegion> fns = List.of(fn("tramp", 0x1000), fn("main", 0x2000), fn("sub", 0x3000));
        LongPredicate mix = ra -> ra > 0x5000 && ra <= 0x5100, work = ra -> ra > 0x6000 && ra <= 0x6100;
        ChainAccuracy c = new ChainAccuracy(fns, List.of(mix, work));
        // sub (level 2): return addresses into main, tramp, then mix, work, then a caller outside
        assertThat(c.isExact(List.of(0x3010L, 0x2020L, 0x1030L, 0x5005L, 0x6006L, 0x9000L), 2)).isTrue();
        assertThat(c.isExact(List.of(0x3010L, 0x2020L, 0x1030L, 0x5005L, 0x6006L), 2)).isTrue();
        assertThat(c.isExact(List.of(0x3010L, 0x2020L, 0x1030L, 0x6006L, 0x5005L), 2)).as("outer frames swapped").isFalse();
        assertThat(c.isExact(List.of(0x3010L, 0x2020L, 0x1030L, 0x5005L), 2)).as("work lost").isFalse();
        assertThat(c.isExact(List.of(0x3010L, 0x1030L, 0x5005L, 0x6006L), 2)).as("main lost").isFalse();
        assertThat(c.isExact(List.of(0x3010L, 0x2020L, 0x1030L, 0x5005L, 0x6006L, 0x6008L), 2)).as("work twice").isFalse();
        // without outer frames: the chain, then out
        ChainAccuracy plain = new ChainAccuracy(fns.subList(1, 3));
        assertThat(plain.isExact(List.of(0x3010L, 0x2020L, 0x9000L), 1)).isTrue();
        assertThat(plain.isExact(List.of(0x3010L, 0x2020L, 0x2030L), 1)).isFalse();
    }
}
