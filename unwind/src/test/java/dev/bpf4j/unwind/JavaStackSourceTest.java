package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JavaStackSourceTest {
    private final SyntheticFrames frames = new SyntheticFrames();
    private final Symbolizer symbolizer = new Symbolizer(new ProcessCode(new CodeMap(), ProcMaps::read, 0), frames);

    /** Stands in for an engine: its frames are dropped from the top of the trace. */
    static final class FakeEngine {
        static StackTrace run(JavaStackSource source) { return inner(source); }
        private static StackTrace inner(JavaStackSource source) { return source.capture(); }
    }

    private StackTrace callerA(JavaStackSource s) { return callerB(s); }

    private StackTrace callerB(JavaStackSource s) { return FakeEngine.run(s); }

    @Test
    void theCallerPathWithoutEngineFramesStableAcrossCalls() {
        JavaStackSource source = new JavaStackSource(frames, f -> f.getClassName().equals(FakeEngine.class.getName()));
        StackTrace first = callerA(source);
        List<Frame> named = symbolizer.symbolize(first);
        assertThat(first.reliable()).isTrue();
        assertThat(named.get(0).toString()).startsWith(getClass().getName() + ".callerB(JavaStackSourceTest.java:");
        assertThat(named.get(1).toString()).startsWith(getClass().getName() + ".callerA(JavaStackSourceTest.java:");
        assertThat(named.get(2).toString()).startsWith(getClass().getName() + ".theCallerPathWithoutEngineFramesStableAcrossCalls(");
        assertThat(named).noneMatch(f -> f.toString().contains("FakeEngine"));
        // The same path again gives the same ips, except the line of this method's call site.
        StackTrace second = callerA(source);
        assertThat(second.ips().subList(0, 2)).isEqualTo(first.ips().subList(0, 2));
        assertThat(second.ips().get(2)).isNotEqualTo(first.ips().get(2));
        assertThat(second.ips().subList(3, second.depth())).isEqualTo(first.ips().subList(3, first.depth()));
    }

    @Test
    void depthIsCapped() {
        JavaStackSource source = new JavaStackSource(frames, JavaStackSource.inPackages("no.such"));
        assertThat(recurse(source, 300).depth()).isEqualTo(Unwinder.MAX_DEPTH);
    }

    private StackTrace recurse(JavaStackSource s, int n) { return n == 0 ? s.capture() : recurse(s, n - 1); }
}
