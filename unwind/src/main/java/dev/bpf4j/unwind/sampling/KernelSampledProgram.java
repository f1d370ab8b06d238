package dev.bpf4j.unwind.sampling;

/**
 * A perf event whose samples the <em>kernel</em> hands to a BPF program it has loaded
 * ({@code PERF_EVENT_IOC_SET_BPF}), as BCC's profile.py attaches one: no ring buffer, nothing read
 * here. bpf4j uses it as an oracle — the same profile program, run by Linux on the same process,
 * must store the same stacks under the same ids as bpf4j's engines do.
 */
public final class KernelSampledProgram implements AutoCloseable {
    private final int fd;
    private boolean closed;

    private KernelSampledProgram(int fd) { this.fd = fd; }

    /**
     * Opens {@code attr} on thread {@code tid} (any CPU), attaches the program {@code progFd} and
     * enables the event. Fails with {@link SamplingRefusedException} naming the errno and the setting.
     */
    public static KernelSampledProgram attach(PerfEventAttr attr, int tid, int progFd) { return attach(attr, tid, progFd, false); }

    /**
     * As {@link #attach(PerfEventAttr, int, int)}; with {@code inherit} the event (and its program)
     * also follows the threads and children {@code tid} creates from now on — allowed here, unlike
     * for bpf4j's own sampler, since nothing is mmapped.
     */
    public static KernelSampledProgram attach(PerfEventAttr attr, int tid, int progFd, boolean inherit) {
        byte[] encoded = attr.encode();
        if (inherit) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(encoded).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            b.putLong(40, b.getLong(40) | PerfAbi.FLAG_INHERIT);
        }
        long a = PerfSys.allocate(encoded);
        int fd;
        try {
            fd = PerfSys.perfEventOpen(a, tid);
        } finally {
            PerfSys.free(a);
        }
        if (fd < 0) throw SamplingRefusedException.open(PerfSys.errno());
        if (PerfSys.ioctl(fd, PerfAbi.PERF_EVENT_IOC_SET_BPF, progFd) != 0 || PerfSys.ioctl(fd, PerfAbi.PERF_EVENT_IOC_ENABLE) != 0) {
            int errno = PerfSys.errno();
            PerfSys.close(fd);
            throw new SamplingRefusedException("PERF_EVENT_IOC_SET_BPF / ENABLE failed: " + SamplingRefusedException.name(errno));
        }
        return new KernelSampledProgram(fd);
    }

    @Override public void close() {
        if (closed) return;
        closed = true;
        PerfSys.ioctl(fd, PerfAbi.PERF_EVENT_IOC_DISABLE);
        PerfSys.close(fd);
    }
}
