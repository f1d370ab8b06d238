package dev.bpf4j.unwind.sampling;

import dev.bpf4j.unwind.Threads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Samples every thread of this process with perf_event_open, one event and ring per thread (the
 * tids of {@code /proc/self/task} at the start; new threads from the PERF_RECORD_FORK their sampled
 * creator writes in its ring, and a slow rescan of the task list for the others), all drained by one reader
 * thread that hands each {@link PerfRecord.Sample} to the sink on that thread: the sink must be
 * quick (a slow one lets the rings fill and the kernel drop samples; {@code Profiler} queues them).
 * The reader thread itself is not sampled. {@link #start()} fails with
 * {@link SamplingRefusedException} when the kernel refuses; a failure of the sink or of the reader
 * (a corrupt record) ends sampling and is rethrown by {@link #stop()}.
 */
public final class Sampler implements AutoCloseable {
    private final SamplerOptions options;
    /** The sampled process: 0 for this one. */
    private final int pid;
    private final Consumer<PerfRecord.Sample> sink;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final Map<Integer, ThreadEvent> events = new HashMap<>();
    private final Set<Integer> refused = new HashSet<>();
    private final Set<Integer> preferred = new java.util.concurrent.CopyOnWriteArraySet<>();
    private final Thread reader;
    private volatile boolean stopping;
    private volatile SamplerStats finalStats;
    private volatile long samples, lost;
    private long other;
    /** Whether the events sample (reader-owned), and a pending {@link #setEnabled} request. */
    private boolean enabled = true;
    private volatile Toggle toggle;
    private record Toggle(boolean on, CompletableFuture<Void> done) {}
    private int threads, threadsRefused;
    private String firstThreadError;
    /** What ended sampling early: the sink's exception, or the reader's own. */
    private volatile RuntimeException sinkFailure;
    /** The encoded perf_event_attr in native memory, owned by the reader thread. */
    private long attr;
    private volatile Runnable batchEnd = () -> {};
    private final RingPoller poller;

    public Sampler(SamplerOptions options, Consumer<PerfRecord.Sample> sink) { this(options, 0, sink); }

    /**
     * Samples process {@code pid} instead (0: this process), one event per thread as
     * {@code perf record -p PID} does: the threads of {@code /proc/PID/task}, rescanned to follow new
     * ones. Per-thread events cannot be inherited by new threads and still be mapped (the kernel
     * refuses mmap of an inherited per-task event), so a new thread is sampled from the drain that reads
     * its creator's PERF_RECORD_FORK (attr.task), or, created by an unsampled thread, from the first
     * rescan that sees it. Once the process has exited, sampling goes on with no thread until {@link #stop()}.
     */
    public Sampler(SamplerOptions options, int pid, Consumer<PerfRecord.Sample> sink) {
        if (pid < 0) throw new IllegalArgumentException("pid " + pid);
        this.options = options;
        this.pid = pid;
        this.sink = sink;
        this.poller = new RingPoller();
        this.reader = new Thread(this::readLoop, "bpf4j-sampler");
        reader.setDaemon(true);
    }

    /**
     * Opens the event of {@code tid} before the others (call before {@link #start}): where the
     * locked-memory budget holds rings for only some threads (unprivileged, a low {@code ulimit -l}),
     * the thread that matters gets one.
     */
    public Sampler preferThread(int tid) {
        preferred.add(tid);
        return this;
    }

    /** The calling thread's kernel tid, from {@code /proc/thread-self} ({@code PID/task/TID}). */
    /**
     * Runs {@code r} on the reader thread after each wake-up's records have gone to the sink (and
     * after the last ones at stop): a sink that queues samples for another thread can hand them over
     * there in one go, so that thread wakes once per batch, not once per sample (each wake-up costs
     * tens of µs of CPU in this VM). Call before {@link #start}.
     */
    public Sampler onBatchEnd(Runnable r) {
        this.batchEnd = java.util.Objects.requireNonNull(r);
        return this;
    }

    public static int currentTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read /proc/thread-self: " + e.getMessage(), e);
        }
    }

    /** Opens the events of the current threads and starts reading; throws when sampling is refused. */
    public Sampler start() {
        reader.start();
        try {
            started.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("interrupted while the sampler started");
        }
        return this;
    }

    /**
     * Turns every event's sampling off or on (PERF_EVENT_IOC_DISABLE / _ENABLE) without closing the
     * events and rings, and returns once the reader has done so; turning off also drains every ring
     * to the sink first. Threads found while off get events that stay off until turned on. A steady
     * profile paused between measurements, without opening ≈20 events and rings each time.
     */
    public void setEnabled(boolean on) {
        if (!reader.isAlive()) throw new IllegalStateException("the sampler is not running");
        Toggle t = new Toggle(on, new CompletableFuture<>());
        synchronized (this) {
            toggle = t;
            poller.wake();
            boolean interrupted = false;
            while (true) {
                try {
                    t.done().get(100, TimeUnit.MILLISECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.TimeoutException e) {
                    if (!reader.isAlive() && !t.done().isDone()) throw new IllegalStateException("the sampler ended");
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the sampler ended", e.getCause());
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Samples read so far (any thread), and samples the kernel reported lost. */
    public long samplesSoFar() { return samples; }

    public long lostSoFar() { return lost; }

    /** The reader thread (CPU accounting). */
    public Thread readerThread() { return reader; }

    /** Stops sampling, drains what is left and returns the counts; a failure of the sink is rethrown. */
    public SamplerStats stop() {
        stopping = true;
        poller.wake();
        Threads.joinUninterruptibly(reader);
        if (sinkFailure != null) throw sinkFailure;
        return finalStats;
    }

    @Override public void close() {
        if (reader.isAlive()) stop();
        else if (reader.getState() == Thread.State.NEW) poller.close();
    }

    private void readLoop() {
        int self = pid == 0 ? (int) PerfSys.gettid() : -1;
        // attr.task: a sampled thread that creates a thread reports it in its own ring (PERF_RECORD_FORK),
        // so new threads are followed from the records the reader drains anyway, not from listing
        // /proc/PID/task; the rescan only catches threads created by unsampled ones (this reader).
        byte[] encoded = options.attr().encode();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(encoded).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putLong(40, b.getLong(40) | PerfAbi.FLAG_TASK);
        attr = PerfSys.allocate(encoded);
        try {
            try {
                rescan(self, true);
                started.complete(null);
            } catch (RuntimeException e) {
                started.completeExceptionally(e);
                return;
            }
            // Woken by a ring past its watermark (half full) or a hung-up event; every ring is also
            // drained each drainMillis so that samples reach the sink within that time, and the
            // threads are rescanned each rescanMillis.
            long drainNanos = TimeUnit.MILLISECONDS.toNanos(options.drainMillis());
            long rescanNanos = TimeUnit.MILLISECONDS.toNanos(options.rescanMillis());
            long now = System.nanoTime(), nextDrain = now + drainNanos, nextRescan = now + rescanNanos;
            poller.watch(events.values());
            List<ThreadEvent> hungUp = new ArrayList<>();
            try {
                while (!stopping && sinkFailure == null) {
                    long wait = Math.min(nextDrain, nextRescan) - System.nanoTime();
                    int waitMillis = (int) Math.max(0, (wait + 999_999) / 1_000_000);
                    for (ThreadEvent e : poller.await(waitMillis, hungUp)) e.reader.drain(deliver);
                    if (!forked.isEmpty() && openForked(self)) poller.watch(events.values());
                    if (!hungUp.isEmpty()) {
                        for (ThreadEvent e : hungUp) {
                            e.close();
                            events.remove(e.tid);
                        }
                        hungUp.clear();
                        poller.watch(events.values());
                    }
                    // Both timers from the same clock reading: with equal intervals (the default)
                    // they fire on the same wake-up, not on two (each wake-up costs ≈0.1 ms of CPU).
                    now = System.nanoTime();
                    if (now - nextDrain >= 0) {
                        drainAll();
                        nextDrain = now + drainNanos;
                    }
                    Toggle t = toggle;
                    if (t != null) {
                        toggle = null;
                        for (ThreadEvent e : events.values()) e.enable(t.on());
                        drainAll();   // turned off: every sample taken until now reaches the sink
                        enabled = t.on();
                        endBatch();
                        t.done().complete(null);
                    }
                    if (!forked.isEmpty() && openForked(self)) poller.watch(events.values());
                    if (now - nextRescan >= 0) {
                        if (rescan(self, false)) poller.watch(events.values());
                        nextRescan = now + rescanNanos;
                    }
                    endBatch();
                }
                drainAll();
                endBatch();
            } catch (RuntimeException e) {
                if (sinkFailure == null) sinkFailure = new IllegalStateException("sampler reader failed: " + e.getMessage(), e);
            }
        } finally {
            Toggle t = toggle;
            if (t != null) t.done().completeExceptionally(new IllegalStateException("the sampler ended"));
            for (ThreadEvent e : events.values()) e.close();
            events.clear();
            poller.close();
            PerfSys.free(attr);
            finalStats = new SamplerStats(samples, lost, other, threads, threadsRefused, firstThreadError,
                    java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
        }
    }

    private void endBatch() {
        if (sinkFailure != null) return;
        try {
            batchEnd.run();
        } catch (RuntimeException ex) {
            sinkFailure = ex;
        }
    }

    private void drainAll() {
        for (ThreadEvent e : events.values()) e.reader.drain(deliver);
    }

    /** One instance: {@code this::deliver} at each drain made a new one. */
    private final Consumer<PerfRecord> deliver = this::deliver;

    private void deliver(PerfRecord r) {
        if (r instanceof PerfRecord.Sample s) {
            samples++;
            if (sinkFailure != null) return;
            try {
                sink.accept(s);
            } catch (RuntimeException ex) {
                sinkFailure = ex;
            }
        } else if (r instanceof PerfRecord.Lost l) {
            lost += l.lost();
        } else if (r instanceof PerfRecord.Fork f) {
            forks++;
            // a new thread of the sampled process (not a child process: perf record -p does not follow those either)
            if (f.pid() == f.ppid() && f.tid() != f.pid()) forked.add(f.tid());
        } else if (r instanceof PerfRecord.Comm c) {
            TaskComms.shared().renamed(c);
        } else {
            other++;
        }
    }

    /** Threads announced by PERF_RECORD_FORK since the last {@link #openForked}. */
    private final List<Integer> forked = new ArrayList<>();
    private volatile long forks;

    /** PERF_RECORD_FORK records read so far (new threads and child processes of sampled threads). */
    public long forksSoFar() { return forks; }

    /** Opens the events of threads announced by PERF_RECORD_FORK; true when one was opened. */
    private boolean openForked(int self) {
        List<Integer> order = new ArrayList<>();
        for (int tid : forked) if (tid != self && !events.containsKey(tid) && !refused.contains(tid)) order.add(tid);
        forked.clear();
        return open(order, false);
    }

    /** Opens events for new threads; drains and closes those of threads that exited. True when the set changed. */
    private boolean rescan(int self, boolean first) {
        Set<Integer> live = tasks(first);
        int before = events.size();
        for (Iterator<Map.Entry<Integer, ThreadEvent>> it = events.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, ThreadEvent> e = it.next();
            if (!live.contains(e.getKey())) {
                e.getValue().reader.drain(deliver);
                e.getValue().close();
                it.remove();
            }
        }
        refused.retainAll(live);
        List<Integer> order = new ArrayList<>();
        for (int tid : live) if (tid != self && !events.containsKey(tid) && !refused.contains(tid)) order.add(tid);
        if (order.isEmpty()) return events.size() != before;   // the usual rescan: nothing new
        order.sort(Comparator.comparing((Integer t) -> !preferred.contains(t)).thenComparing(t -> t));
        return open(order, first) || events.size() != before;
    }

    /** Opens the events of {@code order}; true when one was opened. */
    private boolean open(List<Integer> order, boolean first) {
        int opened = threads;
        for (int tid : order) {
            try {
                ThreadEvent e = ThreadEvent.open(tid, attr, options.attr().format(), options.dataPages(), enabled);
                if (e != null) {
                    events.put(tid, e);
                    threads++;
                    // a perf_event program may ask a sample for its thread's name after the thread is gone
                    if (options.attr().format().programRegs()) TaskComms.shared().follow(processId(), tid);
                }
            } catch (SamplingRefusedException ex) {
                // The first refusal, before any thread is sampled, is the answer for the whole process.
                if (first && events.isEmpty()) throw ex;
                // Not retried: what refused it (the locked-memory budget, say) holds until rings are freed.
                refused.add(tid);
                threadsRefused++;
                if (firstThreadError == null) firstThreadError = ex.getMessage();
            }
        }
        return threads != opened;
    }

    private int processId() { return pid != 0 ? pid : (int) ProcessHandle.current().pid(); }

    private Set<Integer> tasks(boolean first) {
        Set<Integer> tids = new HashSet<>();
        String dir = pid == 0 ? "/proc/self/task" : "/proc/" + pid + "/task";
        // File.list: one native call for the names, where Files.list's stream of Paths ran deep
        // in the bytecode interpreter (the reader's code runs too rarely to be compiled soon).
        String[] names = new java.io.File(dir).list();
        if (names == null) {
            // Another process that has exited has no threads left; this one always has.
            if (pid != 0 && !first) return tids;
            throw new SamplingRefusedException("cannot list " + dir);
        }
        for (String name : names) {
            try {
                tids.add(Integer.parseInt(name));
            } catch (NumberFormatException ignored) {
                // not a task directory
            }
        }
        return tids;
    }
}
