package dev.bpf4j.unwind.sampling;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.bpf4j.unwind.sampling.PerfAbi.*;

/**
 * A {@code struct perf_event_attr} for user-space sampling: a software clock event, at a frequency
 * ({@code freq = 1}, {@code sample_freq}) or every {@code period} ns, recording what {@link SampleFormat}
 * describes. The kernel side is excluded (a JVM user may only sample user space at
 * {@code perf_event_paranoid} 2), and times use CLOCK_MONOTONIC so they compare with {@link System#nanoTime()}.
 */
public record PerfEventAttr(long config, boolean frequency, long rate, SampleFormat format) {
    public PerfEventAttr {
        if (config != PERF_COUNT_SW_CPU_CLOCK && config != PERF_COUNT_SW_TASK_CLOCK) {
            throw new IllegalArgumentException("software event " + config + ": expected cpu-clock (0) or task-clock (1)");
        }
        if (rate <= 0) throw new IllegalArgumentException((frequency ? "frequency " : "period ") + rate + " must be positive");
    }

    /** cpu-clock at {@code hz} samples per second of CPU time. */
    public static PerfEventAttr cpuClockAtFrequency(long hz, SampleFormat format) {
        return new PerfEventAttr(PERF_COUNT_SW_CPU_CLOCK, true, hz, format);
    }

    /** The 136 bytes the kernel reads (PERF_ATTR_SIZE_VER8). */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(ATTR_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, PERF_TYPE_SOFTWARE);
        b.putInt(4, ATTR_SIZE);
        b.putLong(8, config);
        b.putLong(16, rate);                       // sample_period or sample_freq
        b.putLong(24, format.sampleType());
        long flags = FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV | FLAG_USE_CLOCKID;
        if (frequency) flags |= FLAG_FREQ;
        if (format.callchain()) flags |= FLAG_EXCLUDE_CALLCHAIN_KERNEL;
        // a perf_event program may ask for the thread's name: the kernel reports each rename and exec
        // of the sampled thread in the ring, timed like the samples (TaskComms)
        if (format.programRegs()) flags |= FLAG_COMM | FLAG_COMM_EXEC | FLAG_SAMPLE_ID_ALL;
        b.putLong(40, flags);
        b.putLong(80, format.regsMask());          // sample_regs_user
        b.putInt(88, format.stackSize());          // sample_stack_user
        b.putInt(92, CLOCK_MONOTONIC);             // clockid
        return b.array();
    }
}
