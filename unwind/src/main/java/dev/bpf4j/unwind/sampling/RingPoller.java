package dev.bpf4j.unwind.sampling;

import com.kenai.jffi.MemoryIO;

import java.util.ArrayList;
import java.util.List;

/**
 * Sleeps until a ring needs draining, as perf and async-profiler do: poll(2) on the events' fds,
 * which the kernel makes readable when a ring holds more than its wake-up watermark (half the ring by
 * default: perf's {@code ring_buffer_init}), or hung up when the thread has exited — instead of
 * waking on a timer and looking at every ring. An eventfd in the set lets {@link #wake} end a wait
 * at once (stop). Used by the reader thread only, except {@link #wake}.
 */
final class RingPoller implements AutoCloseable {
    private static final short POLLIN = 0x1;
    private static final int POLLFD_SIZE = 8;   // struct pollfd { int fd; short events; short revents; }
    private static final MemoryIO IO = MemoryIO.getInstance();

    private final int wakeFd;
    private final long word;
    private long fds;
    private int capacity;
    private final List<ThreadEvent> polled = new ArrayList<>();
    private boolean closed;

    RingPoller() {
        wakeFd = PerfSys.eventfd();
        if (wakeFd < 0) throw new SamplingRefusedException("eventfd failed: " + SamplingRefusedException.name(PerfSys.errno()));
        word = IO.allocateMemory(8, true);
    }

    /** The events to wait on from now on (call again when the set changes). */
    void watch(Iterable<ThreadEvent> events) {
        polled.clear();
        events.forEach(polled::add);
        int n = polled.size() + 1;
        if (n > capacity) {
            if (fds != 0) IO.freeMemory(fds);
            capacity = Math.max(n, 2 * capacity);
            fds = IO.allocateMemory((long) capacity * POLLFD_SIZE, true);
        }
        put(0, wakeFd);
        for (int i = 0; i < polled.size(); i++) put(i + 1, polled.get(i).fd());
    }

    /**
     * Waits up to {@code timeoutMillis} for a ring past its watermark, a hung-up event or a
     * {@link #wake}; returns the events that are ready (drain them) and adds to {@code hungUp} those
     * whose thread exited (drain, then close them: poll reports them ready until then).
     */
    List<ThreadEvent> await(int timeoutMillis, List<ThreadEvent> hungUp) {
        int n = polled.size() + 1;
        for (int i = 0; i < n; i++) IO.putShort(fds + (long) i * POLLFD_SIZE + 6, (short) 0);
        int ready = PerfSys.poll(fds, n, timeoutMillis);
        List<ThreadEvent> out = new ArrayList<>();
        if (ready <= 0) return out;   // a timeout, or EINTR: the caller's loop goes on
        if (IO.getShort(fds + 6) != 0) PerfSys.read(wakeFd, word, 8);
        for (int i = 1; i < n; i++) {
            short revents = IO.getShort(fds + (long) i * POLLFD_SIZE + 6);
            if (revents != 0) out.add(polled.get(i - 1));
            if ((revents & ~POLLIN) != 0) hungUp.add(polled.get(i - 1));   // POLLHUP: the thread exited
        }
        return out;
    }

    /** Ends the reader's current or next wait (any thread). */
    synchronized void wake() {
        if (closed) return;   // the reader has ended: its fd number may be another file's by now
        long one = IO.allocateMemory(8, true);
        try {
            IO.putLong(one, 1);
            PerfSys.write(wakeFd, one, 8);
        } finally {
            IO.freeMemory(one);
        }
    }

    private void put(int i, int fd) {
        long at = fds + (long) i * POLLFD_SIZE;
        IO.putInt(at, fd);
        IO.putShort(at + 4, POLLIN);
        IO.putShort(at + 6, (short) 0);
    }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        PerfSys.close(wakeFd);
        IO.freeMemory(word);
        if (fds != 0) IO.freeMemory(fds);
    }
}
