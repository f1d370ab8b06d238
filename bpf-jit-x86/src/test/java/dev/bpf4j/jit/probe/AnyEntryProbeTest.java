package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Entry probes on ordinary functions (-O2 -fPIC, -O0, endbr64 first, five 1-byte nops, hand-written
 * entries with a short jcc or jmp, RIP-relative loads and stores): a counting program sees every
 * call and its first argument under every engine, the function still returns what it computes,
 * and detaching puts the original bytes back.
 */
class AnyEntryProbeTest {
    record Fn(String name, LongUnaryOperator expected) {}

    private static final List<Fn> FNS = List.of(
            new Fn("ae_mid", a -> 3 * a + 8),
            new Fn("ae_top", a -> (3 * a + 8) + (3 * (a + 1) + 8)),
            new Fn("ae_got", a -> a + 5),
            new Fn("ae_branch", a -> a > 0 ? a * 3 : 1 - a),
            new Fn("ae_nops", a -> a + 2),
            new Fn("ae_jcc8", a -> a > 0 ? a * 3 : 1 - a),
            new Fn("ae_jmp8", a -> a + 9),
            new Fn("ae_ret5", a -> a + 1));

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (AnyEntryLib lib : AnyEntryLib.values()) for (Engines e : Engines.values()) out.add(Arguments.of(lib, e));
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void countsEveryCallAndKeepsResults(AnyEntryLib lib, Engines engine) {
        long block = NativeMemory.allocate(96);
        NativeMemory.setMemory(block, 96, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        try (Executable x = engine.load(ProbeCountTest.counter(0, block), LoadOptions.defaults())) {
            for (Fn fn : FNS) {
                long address = lib.address(fn.name());
                byte[] before = ProcessText.read(address, 16);
                NativeMemory.putLong(block, 0);
                try (ProbeLink link = NativeProbes.attach(address, fn.name(), engine.probe(x, regions))) {
                    for (long a : new long[]{-3, 0, 4, 1000}) {
                        assertThat(TestLib.call1(address, a)).as("%s %s(%d)", lib, fn.name(), a).isEqualTo(fn.expected().applyAsLong(a));
                        assertThat(NativeMemory.getLong(block + 32)).as("%s %s: di", lib, fn.name()).isEqualTo(a);
                    }
                    assertThat(link.hits()).as("%s %s", lib, fn.name()).isEqualTo(4);
                    assertThat(NativeMemory.getLong(block)).isEqualTo(4);
                    assertThat(link.errors()).isZero();
                }
                assertThat(ProcessText.read(address, 16)).as("%s %s restored", lib, fn.name()).isEqualTo(before);
                assertThat(TestLib.call1(address, 2)).isEqualTo(fn.expected().applyAsLong(2));
                assertThat(NativeMemory.getLong(block)).isEqualTo(4);
            }
        } finally {
            NativeMemory.free(block);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void ripRelativeStoresReachTheSameVariable(AnyEntryLib lib, Engines engine) {
        long block = NativeMemory.allocate(96);
        NativeMemory.setMemory(block, 96, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        long rip = lib.address("ae_rip");
        long base = TestLib.call1(rip, 0);               // ae_hidden's value now (earlier cases added to it)
        try (Executable x = engine.load(ProbeCountTest.counter(0, block), LoadOptions.defaults());
             ProbeLink link = NativeProbes.attach(rip, "ae_rip", engine.probe(x, regions))) {
            assertThat(TestLib.call1(rip, 10)).isEqualTo(base + 10);
            assertThat(TestLib.call1(rip, 5)).isEqualTo(base + 15);
            assertThat(link.hits()).isEqualTo(2);
        } finally {
            NativeMemory.free(block);
        }
        assertThat(TestLib.call1(rip, 1)).isEqualTo(base + 16);
    }
}
