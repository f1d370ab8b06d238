package dev.bpf4j.unwind.sampling;

/**
 * How to sample: the event ({@link PerfEventAttr}), ring data pages per thread (a power of two;
 * the ring must hold at least two of the largest records, or the kernel stops writing to it for
 * good), how often the reader drains every ring (besides the wake-ups of rings past their
 * watermark) and looks for new threads.
 */
public record SamplerOptions(PerfEventAttr attr, int dataPages, long drainMillis, long rescanMillis) {
    public static final int DEFAULT_DATA_PAGES = 64;

    public SamplerOptions {
        if (dataPages <= 0 || (dataPages & (dataPages - 1)) != 0) throw new IllegalArgumentException("data pages " + dataPages + " is not a power of two");
        long minBytes = 2L * attr.format().maxRecordSize();
        if (dataPages * MappedRing.PAGE_SIZE < minBytes) {
            throw new IllegalArgumentException(dataPages + " data pages cannot hold two samples of " + attr.format().maxRecordSize() + " bytes");
        }
        if (drainMillis <= 0 || rescanMillis <= 0) throw new IllegalArgumentException("drain and rescan intervals must be positive");
    }

    /** cpu-clock at {@code hz}, 16 KiB stacks, 64 data pages, new threads followed from their PERF_RECORD_FORK (rescan every 10 s), drained per {@link #drainMillisFor}. */
    public static SamplerOptions atFrequency(long hz) {
        return of(PerfEventAttr.cpuClockAtFrequency(hz, SampleFormat.defaults()), DEFAULT_DATA_PAGES);
    }

    /**
     * {@code attr} over rings of {@code dataPages}, drained per {@link #drainMillisFor}, threads
     * rescanned every {@link #DEFAULT_RESCAN_MILLIS} ms: listing {@code /proc/self/task} costs the
     * reader ≈0.3 ms of CPU, so a 100 ms rescan alone took 0.3% of a CPU, and a 250 ms one 0.12%.
     */
    public static SamplerOptions of(PerfEventAttr attr, int dataPages) {
        return new SamplerOptions(attr, dataPages, drainMillisFor(attr, dataPages), DEFAULT_RESCAN_MILLIS);
    }

    /**
     * New threads of sampled threads are followed from their PERF_RECORD_FORK (within a drain): the
     * rescan only finds threads that unsampled threads created (the sampler's reader, a thread whose
     * event was refused), so it runs every 10 s, not every second.
     */
    public static final long DEFAULT_RESCAN_MILLIS = 10_000;

    /**
     * How often every ring is drained whatever its fill: the reader sleeps in poll(2) until a ring
     * is past its wake-up watermark (half full), so this only bounds how long a sample of a rarely
     * sampled thread waits in its ring. Each wake-up costs the reader ≈0.1–0.15 ms of CPU in this VM,
     * so the old timer (three drains per ring fill: every 53 ms at 99 Hz) was most of its cost; at
     * 99 Hz the 250 ms drain and rescan were still a third of the reader's wake-ups.
     */
    public static final long DEFAULT_DRAIN_MILLIS = 1000;

    /** {@link #DEFAULT_DRAIN_MILLIS}, whatever the event: the watermark wakes the reader in time. */
    public static long drainMillisFor(PerfEventAttr attr, int dataPages) {
        return DEFAULT_DRAIN_MILLIS;
    }

    public SamplerOptions withFormat(SampleFormat format) {
        PerfEventAttr a = new PerfEventAttr(attr.config(), attr.frequency(), attr.rate(), format);
        return new SamplerOptions(a, dataPages, drainMillisFor(a, dataPages), rescanMillis);
    }

    public SamplerOptions withDataPages(int pages) { return new SamplerOptions(attr, pages, drainMillisFor(attr, pages), rescanMillis); }
}
