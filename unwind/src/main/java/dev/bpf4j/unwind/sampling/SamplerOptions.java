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

    /** cpu-clock at {@code hz}, 16 KiB stacks, 64 data pages, drained every 5 ms, threads rescanned every 100 ms. */
    public static SamplerOptions atFrequency(long hz) {
        return new SamplerOptions(PerfEventAttr.cpuClockAtFrequency(hz, SampleFormat.defaults()), DEFAULT_DATA_PAGES, 5, 100);
    }

    public SamplerOptions withFormat(SampleFormat format) {
        return new SamplerOptions(new PerfEventAttr(attr.config(), attr.frequency(), attr.rate(), format), dataPages, drainMillis, rescanMillis);
    }

    public SamplerOptions withDataPages(int pages) { return new SamplerOptions(attr, pages, drainMillis, rescanMillis); }
}
