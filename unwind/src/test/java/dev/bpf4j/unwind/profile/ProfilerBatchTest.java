package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.sampling.PerfEventAttr;
import dev.bpf4j.unwind.sampling.SampleFormat;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reader hands the unwinder each wake-up's samples as one batch: with 8 ring pages of 1 KiB
 * stacks a watermark wake-up reads about a dozen samples, so hand-overs are far fewer than samples
 * (one per sample before, the unwinder woken for most of them).
 */
class ProfilerBatchTest {
    @Test
    void eachWakeUpsSamplesReachTheUnwinderAsOneBatch() {
        AtomicLong unwound = new AtomicLong();
        SamplerOptions options = new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(false, 1024)), 8, 3_600_000, 3_600_000);
        Profiler p = Profiler.ofProcess(options, s -> unwound.incrementAndGet());
        try {
            p.start();
        } catch (SamplingRefusedException e) {
            assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
        }
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = cpu.getCurrentThreadCpuTime() + 400_000_000L, x = 1;
        while (cpu.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        }
        if (x == 42) System.out.println(x);
        SamplerStats stats = p.stop();
        assertThat(stats.samples()).as("%s", stats).isGreaterThan(50);
        assertThat(unwound.get() + p.dropped()).as("every sample unwound or counted as dropped").isLessThanOrEqualTo(stats.samples());
        assertThat(p.handoffs()).as("hand-overs for %d samples", stats.samples()).isGreaterThan(0).isLessThanOrEqualTo(stats.samples() / 3);
    }
}
