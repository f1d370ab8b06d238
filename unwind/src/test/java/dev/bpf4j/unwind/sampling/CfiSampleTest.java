package dev.bpf4j.unwind.sampling;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import dev.bpf4j.unwind.CfiTestLibraries;
import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.profile.UnwoundSample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * perf samples of a thread spinning in a frameless leaf under a → b → c, all gcc -O2
 * -fomit-frame-pointer: the profiler unwinds each sample over its copied stack by CFI, so every
 * sample in the leaf shows spin, c, b, a, innermost first.
 */
class CfiSampleTest {
    @Test
    void samplesInCodeWithoutFramePointersUnwindOverTheCopiedStack() throws Exception {
        long a = CfiTestLibraries.symbol(false, "a"), spin = CfiTestLibraries.symbol(false, "spin");
        List<UnwoundSample> seen = new CopyOnWriteArrayList<>();
        AtomicInteger tid = new AtomicInteger(-1);
        Profiler profiler = Profiler.ofProcess(new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(true, 16384)), 64, 5, 20),
                s -> { if (s.sample().tid() == tid.get()) seen.add(s); });
        try {
            profiler.start();
        } catch (SamplingRefusedException e) {
            assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
        }
        MemoryIO io = MemoryIO.getInstance();
        long buf = io.allocateMemory(256, true);
        try {
            Thread busy = new Thread(() -> {
                tid.set((int) PerfSys.gettid());
                io.putLong(buf + 14 * 8, 300_000_000L);   // rounds of spin: a few tenths of a second
                CallContext ctx = CallContext.getCallContext(Type.SINT64, new Type[] {Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
                long r = Invoker.getInstance().invokeN2(ctx, a, spin, buf);
                if (r != 6) throw new AssertionError("a returned " + r);
            });
            busy.start();
            busy.join();
        } finally {
            profiler.stop();
            io.freeMemory(buf);
        }
        Symbolizer names = Symbolizer.global();
        int inSpin = 0;
        for (UnwoundSample s : seen) {
            StackTrace t = s.trace();
            if (!"spin".equals(names.symbolize(t.ips().get(0)).symbol())) continue;
            inSpin++;
            List<String> frames = names.symbolize(t).stream().map(Frame::symbol).toList();
            assertThat(frames.subList(0, 4)).as("sample at 0x%x: %s", t.ips().get(0), frames).containsExactly("spin", "c", "b", "a");
        }
        System.out.printf("CFI samples: %d of the thread's %d samples in spin, all spin<-c<-b<-a; whole-process profile: %d reliable, %d unreliable traces%n",
                inSpin, seen.size(), profiler.reliableSamples(), profiler.unreliableSamples());
        assertThat(inSpin).as("samples in spin out of %d", seen.size()).isGreaterThan(20);
        assertThat(profiler.reliableSamples() + profiler.unreliableSamples()).isGreaterThanOrEqualTo(seen.size());
        assertThat(spin).isNotZero();
    }
}
