package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class SyntheticFramesTest {
    private final SyntheticFrames frames = new SyntheticFrames();
    private final Symbolizer symbolizer = new Symbolizer(new ProcessCode(new CodeMap(), ProcMaps::read, 0), frames);

    @Test
    void sameFrameSameIpDistinctFramesDistinctIps() {
        long a = frames.intern("com.acme.Svc", "handle", "Svc.java", 42);
        assertThat(frames.intern("com.acme.Svc", "handle", "Svc.java", 42)).isEqualTo(a);
        long otherLine = frames.intern("com.acme.Svc", "handle", "Svc.java", 43);
        long otherMethod = frames.intern("com.acme.Svc", "close", "Svc.java", 42);
        long noFile = frames.intern("com.acme.Svc", "handle", null, -1);
        assertThat(Set.of(a, otherLine, otherMethod, noFile)).hasSize(4);
        assertThat(frames.size()).isEqualTo(4);
        for (long ip : List.of(a, otherLine, otherMethod, noFile)) {
            assertThat(SyntheticFrames.isSynthetic(ip)).isTrue();
            assertThat((ip - SyntheticFrames.BASE) % SyntheticFrames.SLOT).isZero();
        }
    }

    @Test
    void symbolizesAsAJavaStackTraceLine() {
        long ip = frames.intern("com.acme.Svc", "handle", "Svc.java", 42);
        assertThat(symbolizer.symbolize(ip).toString()).isEqualTo("com.acme.Svc.handle(Svc.java:42)");
        // Any ip in the slot names it, so a consumer that looks up ra - 1 still finds the frame.
        assertThat(symbolizer.symbolize(ip + SyntheticFrames.SLOT - 1).symbol()).isEqualTo("com.acme.Svc.handle(Svc.java:42)");
        assertThat(symbolizer.symbolize(frames.intern("X", "m", null, -1)).toString()).isEqualTo("X.m(Unknown Source)");
        assertThat(symbolizer.symbolize(frames.intern("X", "m", "X.java", -1)).toString()).isEqualTo("X.m(X.java)");
        // A slot never handed out is unknown; so is everything else in the range.
        assertThat(symbolizer.symbolize(SyntheticFrames.BASE + 1000 * SyntheticFrames.SLOT).toString()).isEqualTo("[unknown]");
        // Frames from a trace keep their ips (no ra - 1 for synthetic frames).
        StackTrace t = new StackTrace(List.of(ip, ip), true);
        assertThat(symbolizer.symbolize(t)).extracting(Frame::toString).containsOnly("com.acme.Svc.handle(Svc.java:42)");
    }

    @Test
    void theRangeIsNeverCode() {
        // Non-canonical on x86-64 (bits 63..47 not all equal), so nothing can be mapped there.
        long lo = SyntheticFrames.BASE, hi = SyntheticFrames.BASE + SyntheticFrames.MAX_FRAMES * SyntheticFrames.SLOT - 1;
        for (long ip : new long[] {lo, hi}) {
            assertThat(ip >>> 47).isNotIn(0L, (1L << 17) - 1);
            assertThat(ip >>> 56).isNotIn(0L, 0xffL);
        }
        assertThat(ProcMaps.read()).noneMatch(m -> Long.compareUnsigned(m.end(), lo) > 0 && Long.compareUnsigned(m.start(), hi) <= 0);
        assertThat(new ProcessCode(new CodeMap(), ProcMaps::read, 0).isCode(lo)).isFalse();
        assertThat(SyntheticFrames.isSynthetic(lo - 1)).isFalse();
        assertThat(SyntheticFrames.isSynthetic(hi + 1)).isFalse();
    }

    @Test
    void concurrentInterningHandsOutOneIpPerFrame() throws Exception {
        ConcurrentHashMap<String, Long> seen = new ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    long ip = frames.intern("C", "m", "C.java", i);
                    Long prev = seen.putIfAbsent("C.m:" + i, ip);
                    if (prev != null && prev != ip) failure.set(new AssertionError("line " + i + ": " + prev + " != " + ip));
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        assertThat(failure.get()).isNull();
        assertThat(frames.size()).isEqualTo(2000);
        assertThat(seen.values().stream().collect(Collectors.toSet())).hasSize(2000);
        for (int i = 0; i < 2000; i += 97) assertThat(frames.lookup(seen.get("C.m:" + i)).orElseThrow().line()).isEqualTo(i);
    }

    @Test
    void internsStackWalkerFrames() {
        StackWalker.StackFrame here = StackWalker.getInstance().walk(s -> s.findFirst().orElseThrow());
        long ip = frames.intern(SyntheticFrames.JavaFrame.of(here));
        assertThat(symbolizer.symbolize(ip).toString())
                .isEqualTo(getClass().getName() + ".internsStackWalkerFrames(SyntheticFramesTest.java:" + here.getLineNumber() + ")");
    }
}
