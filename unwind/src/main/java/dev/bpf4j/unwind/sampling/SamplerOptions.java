package dev.bpf4j.unwind.sampling;

/**
 * How to sample: the event ({@link PerfEventAttr}), ring data pages per thread (a power of two;
 * the ring must hold at least two of the largest records, or the kernel stops writing to it for
 * good), how often the reader drains the rings and looks for new threads.
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

    /** cpu-clock at {@code hz}, 16 KiB stacks, 64 data pages, threads rescanned every 250 ms, drained per {@link #drainMillisFor}. */
    public static SamplerOptions atFrequency(long hz) {
        return of(PerfEventAttr.cpuClockAtFrequency(hz, SampleFormat.defaults()), DEFAULT_DATA_PAGES);
    }

    /**
     * {@code attr} over rings of {@code dataPages}, drained per {@link #drainMillisFor}, threads
     * rescanned every {@link #DEFAULT_RESCAN_MILLIS} ms: listing {@code /proc/self/task} costs the
     * reader ≈0.3 ms of CPU, so a 100 ms rescan alone took 0.3% of a CPU.
     */
    public static SamplerOptions of(PerfEventAttr attr, int dataPages) {
        return new SamplerOptions(attr, dataPages, drainMillisFor(attr, dataPages), DEFAULT_RESCAN_MILLIS);
    }

    public static final long DEFAULT_RESCAN_MILLIS = 250;

    /**
     * How often to drain: three times while one busy thread fills its ring at the event's frequency
     * (at most 100 ms, at least 1 ms; 5 ms for a period, whose rate is not known). Each wake-up
     * costs the reader ≈0.15 ms of CPU in this VM, so waking no more often than needed is most of
     * its cost at low rates: 53 ms at 99 Hz, 5 ms at 999 Hz with 16 KiB stacks and 64 pages.
     */
    public static long drainMillisFor(PerfEventAttr attr, int dataPages) {
        if (!attr.frequency()) return 5;
        double records = dataPages * MappedRing.PAGE_SIZE / (double) attr.format().maxRecordSize();
        long ms = (long) (records / attr.rate() * 1000 / 3);
        return Math.max(1, Math.min(100, ms));
    }

    public SamplerOptions withFormat(SampleFormat format) {
        PerfEventAttr a = new PerfEventAttr(attr.config(), attr.frequency(), attr.rate(), format);
        return new SamplerOptions(a, dataPages, drainMillisFor(a, dataPages), rescanMillis);
    }

    public SamplerOptions withDataPages(int pages) { return new SamplerOptions(attr, pages, drainMillisFor(attr, pages), rescanMillis); }
}
