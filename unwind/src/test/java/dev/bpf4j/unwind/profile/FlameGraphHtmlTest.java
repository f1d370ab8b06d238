package dev.bpf4j.unwind.profile;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class FlameGraphHtmlTest {
    private static final Pattern FRAME = Pattern.compile(
            "<g class=\"f\" data-x=\"([0-9.]+)\" data-w=\"([0-9.]+)\" data-d=\"(\\d+)\"><title>([^<]*) \\((\\d+) samples, ([0-9.]+)%\\)</title>");

    @Test
    void eachFrameOfTheMergedTreeIsOneRectangleWithItsShare() {
        FoldedStacks f = new FoldedStacks();
        f.add(List.of("main", "sub1", "sub2"), 6);
        f.add(List.of("main", "sub1"), 2);
        f.add(List.of("[unknown]"), 2);
        String html = FlameGraphHtml.render(f, "demo <profile>");
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<title>demo &lt;profile&gt;</title>").contains("10 samples, 3 distinct stacks");
        assertThat(html).doesNotContain("http://", "https://").containsOnlyOnce("<svg").doesNotContain("$FRAMES");
        Matcher m = FRAME.matcher(html);
        StringBuilder seen = new StringBuilder();
        while (m.find()) seen.append(m.group(3)).append(':').append(m.group(4)).append('=').append(m.group(5)).append('@').append(m.group(1)).append('\n');
        // Depth-first, callees in name order: all, [unknown] (x 0), main (x 0.2), sub1, sub2.
        assertThat(seen.toString()).isEqualTo("""
                0:all=10@0.000000
                1:[unknown]=2@0.000000
                1:main=8@0.200000
                2:sub1=8@0.200000
                3:sub2=6@0.200000
                """);
    }

    @Test
    void framesTooNarrowToSeeAreLeftOutAndNamesAreEscaped() {
        FoldedStacks f = new FoldedStacks();
        f.add(List.of("big"), 100_000);
        f.add(List.of("tiny"), 1);
        f.add(List.of("a<b>&\"c\""), 50_000);
        String html = FlameGraphHtml.render(f, "t");
        assertThat(html).contains("<title>big (").contains("a&lt;b&gt;&amp;&quot;c&quot;").doesNotContain("<title>tiny");
    }

    @Test
    void anEmptyProfileSaysSo() {
        assertThat(FlameGraphHtml.render(new FoldedStacks(), "t")).contains("No samples.");
    }
}
