package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CodeMapTest {
    private static CodeRegion region(long start, long size, String name) {
        return new CodeRegion(start, size, name, "test", List.of(new UnwindRow(0, (int) size, CfaRule.FRAME_POINTER)));
    }

    @Test
    void findsByAddressAndForgetsOnUnregister() {
        CodeMap map = new CodeMap();
        CodeRegion a = region(0x1000, 0x100, "a"), b = region(0x1100, 0x10, "b");
        map.register(a);
        map.register(b);
        assertThat(map.find(0x1000)).contains(a);
        assertThat(map.find(0x10ff)).contains(a);
        assertThat(map.find(0x1100)).contains(b);
        assertThat(map.find(0x1110)).isEmpty();
        assertThat(map.find(0xfff)).isEmpty();
        assertThat(map.unregister(a)).isTrue();
        assertThat(map.find(0x1000)).isEmpty();
        assertThat(map.unregister(a)).isFalse();
        assertThat(map.size()).isEqualTo(1);
    }

    @Test
    void rejectsOverlaps() {
        CodeMap map = new CodeMap();
        map.register(region(0x1000, 0x100, "a"));
        assertThatThrownBy(() -> map.register(region(0x10f0, 0x100, "b"))).hasMessageContaining("overlaps a");
        assertThatThrownBy(() -> map.register(region(0xf00, 0x101, "c"))).hasMessageContaining("overlaps a");
        map.register(region(0xf00, 0x100, "d"));
    }

    @Test
    void highAddressesCompareUnsigned() {
        CodeMap map = new CodeMap();
        CodeRegion hi = region(0xffffffff_ff600000L, 0x1000, "vsyscall");
        map.register(hi);
        map.register(region(0x1000, 0x10, "low"));
        assertThat(map.find(0xffffffff_ff600010L)).contains(hi);
    }

    @Test
    void rowsSayWhichRuleHolds() {
        CodeRegion r = new CodeRegion(0x2000, 10, "f", "test", List.of(
                new UnwindRow(0, 1, CfaRule.RETURN_AT_SP), new UnwindRow(1, 4, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(4, 9, CfaRule.FRAME_POINTER), new UnwindRow(9, 10, CfaRule.RETURN_AT_SP)));
        assertThat(r.ruleAt(0x2000)).isEqualTo(CfaRule.RETURN_AT_SP);
        assertThat(r.ruleAt(0x2003)).isEqualTo(CfaRule.RETURN_AT_SP_PLUS_8);
        assertThat(r.ruleAt(0x2008)).isEqualTo(CfaRule.FRAME_POINTER);
        assertThat(r.ruleAt(0x2009)).isEqualTo(CfaRule.RETURN_AT_SP);
        assertThat(r.ruleAt(0x200a)).isNull();
        assertThatThrownBy(() -> new CodeRegion(0, 4, "x", "t", List.of(new UnwindRow(0, 5, CfaRule.FRAME_POINTER))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentRegistrationIsSafe() throws Exception {
        CodeMap map = new CodeMap();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            final long base = 0x100000L * (t + 1);
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    CodeRegion r = region(base + i * 16L, 16, "r");
                    map.register(r);
                    assertThat(map.find(base + i * 16L + 3)).contains(r);
                    if (i % 2 == 0) map.unregister(r);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        assertThat(map.size()).isEqualTo(4 * 1000);
    }
}
