package dev.bpf4j.api;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Packet memory below 4 GiB, also when the MAP_32BIT window is full (as a JDK 25 class space and many frames can make it). */
class LowMemoryTest {
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final long MMAP = Library.getDefault().getSymbolAddress("mmap"), MUNMAP = Library.getDefault().getSymbolAddress("munmap");
    private static final CallContext CTX6 = CallContext.getCallContext(Type.SINT64, six(), CallingConvention.DEFAULT, true);
    private static final CallContext CTX2 = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, true);

    @Test
    void gapsAreFoundBelowFourGiBAndAboveTheFloor() {
        List<String> maps = List.of(
                "01000000-40000000 rw-p 00000000 00:00 0",
                "40001000-66000000 rw-p 00000000 00:00 0",
                "66000000-fff00000 ---p 00000000 00:00 0",
                "555555554000-555555556000 r-xp 00000000 fe:00 1 /bin/x");
        assertThat(LowGaps.find(maps, 4096)).as("the highest gap, ending a page under 4 GiB").isEqualTo(0xfffff000L - 4096);
        assertThat(LowGaps.find(maps, 0x200000)).as("1 MiB under 4 GiB, 4 KiB at 1 GiB, nothing under the floor: 2 MiB fit nowhere").isZero();
        assertThat(LowGaps.find(List.of("7f0000000000-7f0000001000 rw-p 0 00:00 0"), 8192)).isEqualTo(LowGaps.CEILING - 8192);
        assertThat(LowGaps.find(List.of("00400000-00401000 r-xp 0 00:00 0 /bin/y", "40000000-41000000 rw-p 0 00:00 0"), 4096))
                .isEqualTo(LowGaps.CEILING - 4096);
    }

    @Test
    void aGapBelowFourGiBIsMappedByAddress() {
        long a = LowMemory.inGap(2 * 4096);
        try {
            assertThat(a).isNotZero().isGreaterThanOrEqualTo(LowGaps.FLOOR);
            assertThat(a + 2 * 4096).isLessThanOrEqualTo(LowGaps.CEILING);
            assertThat(NativeMemory.getLong(a + 4096)).isZero();
            NativeMemory.putLong(a + 2 * 4096 - 8, 7);
        } finally {
            LowMemory.free(a, 2 * 4096);
        }
    }

    /** The MAP_32BIT window filled with reservations (its random start may leave a few pages free): allocation still succeeds. */
    @Test
    void aFullMap32BitWindowFallsBackToAGapBelowFourGiB() {
        List<long[]> fillers = new ArrayList<>();
        long got = 0;
        try {
            for (long chunk = 256L << 20; chunk >= 4096; chunk /= 2) {     // reserve (PROT_NONE, no memory) all the window can give
                while (true) {
                    long a = INVOKER.invokeN6(CTX6, MMAP, 0, chunk, 0, 0x02 | 0x20 | 0x40 | 0x4000, -1, 0);
                    if (a == -1 || a == 0) break;
                    fillers.add(new long[] {a, chunk});
                }
            }
            got = LowMemory.allocate(3 * 4096);
            assertThat(got + 3 * 4096).as("below 4 GiB, end included").isLessThanOrEqualTo(LowGaps.CEILING);
            assertThat(got).isGreaterThanOrEqualTo(LowGaps.FLOOR);
            NativeMemory.putLong(got + 3 * 4096 - 8, 42);
            assertThat(NativeMemory.getLong(got)).as("zeroed").isZero();
            assertThat(NativeMemory.getLong(got + 3 * 4096 - 8)).isEqualTo(42);
        } finally {
            if (got != 0) LowMemory.free(got, 3 * 4096);
            for (long[] f : fillers) INVOKER.invokeN2(CTX2, MUNMAP, f[0], f[1]);
        }
    }

    private static Type[] six() {
        Type[] t = new Type[6];
        Arrays.fill(t, Type.SINT64);
        return t;
    }
}
