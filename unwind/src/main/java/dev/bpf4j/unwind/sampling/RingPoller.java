package dev.bpf4j.unwind.sampling;

import com.kenai.jffi.MemoryIO;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sleeps until a ring needs draining, as perf and async-profiler do: the kernel makes an event's fd
 * readable when its ring holds more than its wake-up watermark (half the ring by default: perf's
 * {@code ring_buffer_init}), or hung up when the thread has exited — instead of waking on a timer and
 * looking at every ring. The fds are registered once in an epoll set, so a wake-up costs the kernel
 * the ready events only: poll(2) asked every event of every thread twice per wake-up ({@code
 * perf_poll} over ≈23 fds, a fifth of the reader's CPU at 99 Hz). An eventfd in the set lets
 * {@link #wake} end a wait at once (stop). Used by the reader thread only, except {@link #wake}.
 */
final class RingPoller implements AutoCloseable {
    private static final int EPOLLIN = 0x1;
    private static final int EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2;
    /** struct epoll_event { uint32_t events; uint64_t data; } __attribute__((packed)) on x86-64. */
    private static final int EVENT_SIZE = 12;
    /** The eventfd's data word; events are numbered from 1. */
    private static final long WAKE_KEY = 0;
    private static final MemoryIO IO = MemoryIO.getInstance();

    private final int wakeFd;
    private final int epollFd;
    private final long word;
    private final long ctlEvent;
    private long ready;
    private int capacity;
    /** Registered events and their keys; keyed by identity: a closed event's fd number may be reused. */
    private final Map<ThreadEvent, Long> registered = new IdentityHashMap<>();
    private final Map<Long, ThreadEvent> byKey = new HashMap<>();
    private long nextKey = 1;
    private boolean closed;

    RingPoller() {
        wakeFd = PerfSys.eventfd();
        if (wakeFd < 0) throw new SamplingRefusedException("eventfd failed: " + SamplingRefusedException.name(PerfSys.errno()));
        epollFd = PerfSys.epollCreate();
        if (epollFd < 0) {
            int errno = PerfSys.errno();
            PerfSys.close(wakeFd);
            throw new SamplingRefusedException("epoll_create1 failed: " + SamplingRefusedException.name(errno));
        }
        word = IO.allocateMemory(8, true);
        ctlEvent = IO.allocateMemory(EVENT_SIZE, true);
        add(wakeFd, WAKE_KEY);
        grow(8);
    }

    /** The events to wait on from now on (call again when the set changes). */
    void watch(Iterable<ThreadEvent> events) {
        Map<ThreadEvent, Boolean> now = new IdentityHashMap<>();
        for (ThreadEvent e : events) now.put(e, Boolean.TRUE);
        for (var it = registered.entrySet().iterator(); it.hasNext(); ) {
            var r = it.next();
            if (now.containsKey(r.getKey())) continue;
            // A closed event left the epoll set with its file; one still open is taken out here.
            PerfSys.epollCtl(epollFd, EPOLL_CTL_DEL, r.getKey().fd(), ctlEvent);
            byKey.remove(r.getValue());
            it.remove();
        }
        for (ThreadEvent e : now.keySet()) {
            if (registered.containsKey(e)) continue;
            long key = nextKey++;
            add(e.fd(), key);
            registered.put(e, key);
            byKey.put(key, e);
        }
        grow(registered.size() + 1);
    }

    /**
     * Waits up to {@code timeoutMillis} for a ring past its watermark, a hung-up event or a
     * {@link #wake}; returns the events that are ready (drain them) and adds to {@code hungUp} those
     * whose thread exited (drain, then close them: they are reported ready until then).
     */
    List<ThreadEvent> await(int timeoutMillis, List<ThreadEvent> hungUp) {
        int n = PerfSys.epollWait(epollFd, ready, capacity, timeoutMillis);
        List<ThreadEvent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {   // n <= 0: a timeout, or EINTR: the caller's loop goes on
            long at = ready + (long) i * EVENT_SIZE;
            int revents = IO.getInt(at);
            long key = IO.getLong(at + 4);
            if (key == WAKE_KEY) {
                PerfSys.read(wakeFd, word, 8);
                continue;
            }
            ThreadEvent e = byKey.get(key);
            if (e == null) continue;
            out.add(e);
            if ((revents & ~EPOLLIN) != 0) hungUp.add(e);   // EPOLLHUP: the thread exited
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

    private void add(int fd, long key) {
        IO.putInt(ctlEvent, EPOLLIN);
        IO.putLong(ctlEvent + 4, key);
        if (PerfSys.epollCtl(epollFd, EPOLL_CTL_ADD, fd, ctlEvent) != 0) {
            throw new IllegalStateException("epoll_ctl ADD of fd " + fd + " failed: " + SamplingRefusedException.name(PerfSys.errno()));
        }
    }

    private void grow(int n) {
        if (n <= capacity) return;
        if (ready != 0) IO.freeMemory(ready);
        capacity = Math.max(n, 2 * capacity);
        ready = IO.allocateMemory((long) capacity * EVENT_SIZE, true);
    }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        PerfSys.close(wakeFd);
        PerfSys.close(epollFd);
        IO.freeMemory(word);
        IO.freeMemory(ctlEvent);
        if (ready != 0) IO.freeMemory(ready);
    }
}
