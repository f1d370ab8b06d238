package dev.bpf4j.unwind.sampling;

import dev.bpf4j.unwind.ThreadStack;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * perf_event_open on this JVM: a busy thread started after the sampler is followed (rescan) and its
 * samples carry its tid, user registers inside its own stack and a copy of that stack. Skipped, with
 * the kernel's reason, where perf_event_open is refused.
 */
class SamplerLiveTest {
    static Sampler startOrSkip(SamplerOptions options, java.util.function.Consumer<PerfRecord.Sample> sink) {
        try {
            return new Sampler(options, sink).start();
        } catch (SamplingRefusedException e) {
            assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
            throw e;
        }
    }

    @Test
    void samplesANewThreadWithItsRegistersAndStack() throws Exception {
        List<PerfRecord.Sample> samples = new CopyOnWriteArrayList<>();
        AtomicInteger tid = new AtomicInteger();
        long[] bounds = new long[2];
        SamplerStats stats;
        try (Sampler sampler = startOrSkip(new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(true, 8192)), 64, 5, 20), samples::add)) {
            Thread busy = new Thread(() -> {
                tid.set((int) PerfSys.gettid());
                assertThat(Sampler.currentTid()).as("/proc/thread-self").isEqualTo(tid.get());
                ThreadStack st = ThreadStack.current();
                bounds[0] = st.low();
                bounds[1] = st.high();
                // 0.6 s of this thread's CPU time, not wall time: cpu-clock samples CPU time, and a loaded machine gives less.
                java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
                long end = cpu.getCurrentThreadCpuTime() + 600_000_000L, x = 1;
                while (cpu.getCurrentThreadCpuTime() < end) {
                    for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
                }
                if (x == 42) System.out.println(x);
            });
            busy.start();
            busy.join();
            stats = sampler.stop();
        }
        List<PerfRecord.Sample> mine = samples.stream().filter(s -> s.tid() == tid.get()).toList();
        assertThat(stats.threads()).isGreaterThan(1);
        assertThat(stats.samples()).isEqualTo(samples.size());
        // 999 Hz for ~0.6 s of CPU, minus the time before the rescan found the thread.
        assertThat(mine.size()).as("samples of the busy thread (%s)", stats).isGreaterThan(100);
        for (PerfRecord.Sample s : mine) {
            assertThat(s.hasRegs()).isTrue();
            assertThat(s.regIp()).isEqualTo(s.ip());
            assertThat(Long.compareUnsigned(s.sp(), bounds[0]) >= 0 && Long.compareUnsigned(s.sp(), bounds[1]) < 0).as("sp in the thread's stack").isTrue();
            assertThat(s.stack().length).isBetween(8, 8192);
            assertThat(s.userCallchain()).isNotEmpty();
            assertThat(s.userCallchain()[0]).isEqualTo(s.ip());
        }
        // Times are CLOCK_MONOTONIC, the clock of System.nanoTime().
        long now = System.nanoTime();
        assertThat(mine.get(mine.size() - 1).time()).isBetween(now - 5_000_000_000L, now);
    }

    /**
     * A thread that renames itself while it is sampled (Thread.setName on itself: prctl PR_SET_NAME):
     * with a perf_event program's format the kernel reports the rename in the ring, so every sample is
     * named as the thread was at the sample's time, though the names are asked for after the thread is gone.
     */
    @Test
    void samplesAreNamedAsTheThreadWasAtTheirTime() throws Exception {
        List<PerfRecord.Sample> samples = new CopyOnWriteArrayList<>();
        AtomicInteger tid = new AtomicInteger();
        long[] renamedAt = new long[2];
        SamplerOptions options = new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(false, 512, true)), 64, 5, 20);
        try (Sampler sampler = startOrSkip(options, samples::add)) {
            Thread busy = new Thread(() -> {
                tid.set((int) PerfSys.gettid());
                spin(300_000_000L);
                renamedAt[0] = System.nanoTime();
                Thread.currentThread().setName("comm-after");
                renamedAt[1] = System.nanoTime();
                spin(300_000_000L);
            }, "comm-before");
            busy.start();
            busy.join();
            sampler.stop();
        }
        int pid = (int) ProcessHandle.current().pid();
        List<PerfRecord.Sample> mine = samples.stream().filter(s -> s.tid() == tid.get()).toList();
        List<PerfRecord.Sample> before = mine.stream().filter(s -> s.time() < renamedAt[0]).toList();
        List<PerfRecord.Sample> after = mine.stream().filter(s -> s.time() > renamedAt[1]).toList();
        assertThat(before).as("samples before the rename").hasSizeGreaterThan(20);
        assertThat(after).as("samples after the rename").hasSizeGreaterThan(20);
        for (PerfRecord.Sample s : before) assertThat(new String(TaskComms.shared().comm(pid, s.tid(), s.time()))).isEqualTo("comm-before");
        for (PerfRecord.Sample s : after) assertThat(new String(TaskComms.shared().comm(pid, s.tid(), s.time()))).isEqualTo("comm-after");
    }

    /** {@code nanos} of this thread's CPU time (cpu-clock samples CPU time; a loaded machine gives less per wall second). */
    private static void spin(long nanos) {
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = cpu.getCurrentThreadCpuTime() + nanos, x = 1;
        while (cpu.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        }
        if (x == 42) System.out.println(x);
    }

    /**
     * With the timed drain and the rescan an hour apart, only the rings' watermark (poll on the
     * event fds) can wake the reader: samples of a busy thread reach the sink while it runs, most not lost.
     * 8 KiB stacks in 8 pages: the ring holds under four records (the watermark is half of it), so a
     * reader that slept through the wake-ups would see at most four samples and count the rest lost.
     */
    @Test
    void theRingsWatermarkWakesTheReader() throws Exception {
        List<PerfRecord.Sample> samples = new CopyOnWriteArrayList<>();
        long hour = 3_600_000;
        int[] whileRunning = new int[1];
        SamplerStats stats;
        try (Sampler sampler = startOrSkip(new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(199, new SampleFormat(false, 8192)), 8, hour, hour),
                samples::add)) {
            java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            long end = cpu.getCurrentThreadCpuTime() + 400_000_000L, x = 1;
            while (cpu.getCurrentThreadCpuTime() < end) {
                for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
            }
            if (x == 42) System.out.println(x);
            whileRunning[0] = samples.size();
            stats = sampler.stop();
        }
        int me = Sampler.currentTid();
        assertThat(whileRunning[0]).as("samples delivered before stop (%s)", stats).isGreaterThan(20);
        assertThat(samples).anyMatch(s -> s.tid() == me);
        // A reader the watermark did not wake would lose all but four; one starved of CPU by other
        // processes (CI under load) may lose a few rings' worth while it waits for a core.
        assertThat(stats.lost()).as("%s", stats).isLessThan(samples.size());
    }

    /**
     * setEnabled(false) stops every event without closing it: this thread's CPU while paused gives
     * no sample of it; turned on again, the same events sample it again (no new event opened).
     */
    @Test
    void samplingTurnedOffAndOnKeepsTheEvents() throws Exception {
        List<PerfRecord.Sample> samples = new CopyOnWriteArrayList<>();
        int me = Sampler.currentTid();
        SamplerStats stats;
        try (Sampler sampler = startOrSkip(new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(false, 1024)), 8, 5, 3_600_000), samples::add)) {
            spin(100_000_000L);
            sampler.setEnabled(false);
            long mineBefore = samples.stream().filter(s -> s.tid() == me).count();
            assertThat(mineBefore).as("samples while on").isGreaterThan(10);
            spin(300_000_000L);
            sampler.setEnabled(false);   // drains again: nothing of the paused time
            assertThat(samples.stream().filter(s -> s.tid() == me).count()).as("samples while off").isEqualTo(mineBefore);
            sampler.setEnabled(true);
            spin(100_000_000L);
            stats = sampler.stop();
            assertThat(samples.stream().filter(s -> s.tid() == me).count()).as("samples on again").isGreaterThan(mineBefore + 10);
        }
        assertThat(stats.samples()).isEqualTo(samples.size());
    }

    /**
     * With the rescan an hour apart, a thread started by a sampled thread (this one) is still
     * followed: its creation comes as a PERF_RECORD_FORK in this thread's ring (attr.task).
     */
    @Test
    void aNewThreadIsFollowedFromItsForkRecordWithoutARescan() throws Exception {
        List<PerfRecord.Sample> samples = new CopyOnWriteArrayList<>();
        AtomicInteger tid = new AtomicInteger();
        SamplerStats stats;
        long forks;
        try (Sampler sampler = startOrSkip(new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(999, new SampleFormat(false, 1024)), 8, 5, 3_600_000), samples::add)) {
            Thread busy = new Thread(() -> {
                tid.set((int) PerfSys.gettid());
                spin(400_000_000L);
            });
            busy.start();
            busy.join();
            forks = sampler.forksSoFar();
            stats = sampler.stop();
        }
        assertThat(forks).as("PERF_RECORD_FORK read").isGreaterThanOrEqualTo(1);
        assertThat(samples.stream().filter(s -> s.tid() == tid.get()).count()).as("samples of the new thread (%s)", stats).isGreaterThan(50);
    }
}
