package dev.bpf4j.jit.compiler;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The multiply-high quotient equals Long.divideUnsigned for divisors of every size and both variants. */
class DivisionMagicTest {
    private static final long[] EDGES = {0, 1, 2, 3, 7, 1000002, 1000003, 1000004, 0xffffffffL, 0x100000000L,
            Long.MAX_VALUE, Long.MIN_VALUE, -1, -2, -3, 0x8000000000000001L, 0xfffffffffffffffeL};

    @Test
    void quotientsMatchDivideUnsigned() {
        SplittableRandom rnd = new SplittableRandom(42);
        boolean sawAdd = false, sawPlain = false;
        long[] divisors = new long[400];
        int k = 0;
        for (long d : new long[]{3, 5, 6, 7, 10, 11, 100, 641, 1000003, 0xffffffffL, 0x100000001L, Integer.MAX_VALUE,
                -3L, 0xFFFFFFFF80000000L, Long.MAX_VALUE, 0x8000000000000001L, -1L}) divisors[k++] = d;
        while (k < divisors.length) {
            long d = rnd.nextLong() >>> rnd.nextInt(64);
            if (Long.compareUnsigned(d, 3) >= 0 && Long.bitCount(d) != 1) divisors[k++] = d;
        }
        for (long d : divisors) {
            DivisionMagic m = DivisionMagic.of(d);
            sawAdd |= m.add();
            sawPlain |= !m.add();
            for (long n : EDGES) check(m, n, d);
            for (long n : new long[]{d - 1, d, d + 1, 2 * d - 1, 2 * d, -d, -d - 1}) check(m, n, d);
            for (int i = 0; i < 300; i++) check(m, rnd.nextLong() >>> rnd.nextInt(64), d);
        }
        assertThat(sawAdd).as("some divisor needs the add variant").isTrue();
        assertThat(sawPlain).as("some divisor fits 64 bits").isTrue();
    }

    @Test
    void refusesDivisorsThatNeedNoMagic() {
        for (long d : new long[]{0, 1, 2, 4, 1L << 40, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> DivisionMagic.of(d)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static void check(DivisionMagic m, long n, long d) {
        assertThat(m.quotient(n)).as("%s / %s with %s", Long.toUnsignedString(n), Long.toUnsignedString(d), m)
                .isEqualTo(Long.divideUnsigned(n, d));
    }
}
