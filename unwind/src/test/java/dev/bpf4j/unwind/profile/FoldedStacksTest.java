package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Frame;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FoldedStacksTest {
    @Test
    void countsStacksAndPrintsThemRootFirstInFlamegraphFormat() {
        FoldedStacks f = new FoldedStacks();
        f.add(List.of("main", "a", "b"));
        f.add(List.of("main", "a", "b"));
        f.add(List.of("main", "c"), 5);
        f.add(List.of("[unknown]", "main", "a"));
        assertThat(f.total()).isEqualTo(8);
        assertThat(f.format()).isEqualTo("""
                [unknown];main;a 1
                main;a;b 2
                main;c 5
                """);
        assertThat(f.top(2)).extracting(Map.Entry::getValue).containsExactly(5L, 2L);
        assertThat(FoldedStacks.parse(f.format()).format()).isEqualTo(f.format());
    }

    @Test
    void badFramesAndLinesAreRefused() {
        FoldedStacks f = new FoldedStacks();
        assertThatThrownBy(() -> f.add(List.of())).hasMessageContaining("at least one frame");
        assertThatThrownBy(() -> f.add(List.of("a;b"))).hasMessageContaining("bad frame name 'a;b'");
        assertThatThrownBy(() -> FoldedStacks.parse("a;b 1\na;b x\n")).hasMessageContaining("folded line 2: bad count");
        assertThatThrownBy(() -> FoldedStacks.parse("nocount")).hasMessageContaining("folded line 1: no count");
    }

    @Test
    void framesAreNamedAsStackcollapsePerfNamesThem() {
        assertThat(FrameNames.of(new Frame(0x1000, "bpf4j-jit", "bpf_prog_0123456789abcdef_demo", 0x1c))).isEqualTo("bpf_prog_0123456789abcdef_demo");
        assertThat(FrameNames.of(new Frame(0x1000, "/usr/lib/x86_64-linux-gnu/libc.so.6", null, 0x1c))).isEqualTo("[libc.so.6]");
        assertThat(FrameNames.of(new Frame(0x1000, "[anon:exec]", null, 0x1c))).isEqualTo("[unknown]");
        assertThat(FrameNames.of(Frame.unknown(0x1000))).isEqualTo("[unknown]");
        assertThat(FrameNames.of(new Frame(0x1000, null, "Foo.bar(Foo.java:3)", 0))).isEqualTo("Foo.bar(Foo.java:3)");
        assertThat(FrameNames.of(new Frame(0x1000, "m", "operator;weird", 0))).isEqualTo("operator:weird");
    }
}
