package dev.bpf4j.unwind.sampling;

/**
 * One thread's sampling event: its perf fd, the mapped ring and the reader over it. Opened
 * disabled, enabled once the ring is mapped.
 */
final class ThreadEvent implements AutoCloseable {
    final int tid;
    private final int fd;
    private final MappedRing ring;
    final RingReader reader;

    private ThreadEvent(int tid, int fd, MappedRing ring, SampleFormat format) {
        this.tid = tid;
        this.fd = fd;
        this.ring = ring;
        this.reader = new RingReader(ring, format);
    }

    /**
     * Opens the event of {@code tid}; null when the thread has already exited.
     * @param attr the encoded attr in native memory
     */
    static ThreadEvent open(int tid, long attr, SampleFormat format, int dataPages) { return open(tid, attr, format, dataPages, true); }

    /** As {@link #open(int, long, SampleFormat, int)}, left disabled unless {@code enable}. */
    static ThreadEvent open(int tid, long attr, SampleFormat format, int dataPages, boolean enable) {
        int fd = PerfSys.perfEventOpen(attr, tid);
        if (fd < 0) {
            int errno = PerfSys.errno();
            if (SamplingRefusedException.threadGone(errno)) return null;
            throw SamplingRefusedException.open(errno);
        }
        MappedRing ring = MappedRing.map(fd, dataPages);
        if (ring == null) {
            int errno = PerfSys.errno();
            PerfSys.close(fd);
            throw SamplingRefusedException.mmap(errno, MappedRing.length(dataPages));
        }
        if (enable && PerfSys.ioctl(fd, PerfAbi.PERF_EVENT_IOC_ENABLE) != 0) {
            int errno = PerfSys.errno();
            ring.unmap();
            PerfSys.close(fd);
            throw new SamplingRefusedException("PERF_EVENT_IOC_ENABLE failed: " + SamplingRefusedException.name(errno));
        }
        return new ThreadEvent(tid, fd, ring, format);
    }

    int fd() { return fd; }

    /** PERF_EVENT_IOC_ENABLE or _DISABLE; false when the kernel refused (the thread has exited). */
    boolean enable(boolean on) {
        return PerfSys.ioctl(fd, on ? PerfAbi.PERF_EVENT_IOC_ENABLE : PerfAbi.PERF_EVENT_IOC_DISABLE) == 0;
    }

    @Override public void close() {
        PerfSys.ioctl(fd, PerfAbi.PERF_EVENT_IOC_DISABLE);
        ring.unmap();
        PerfSys.close(fd);
    }
}
