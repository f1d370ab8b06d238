package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Threads;

import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.ProcMaps;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleUnwinder;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplerStats;
import dev.bpf4j.unwind.JvmPerfMap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * A perf-style profile of this process: samples every thread ({@link Sampler}) and unwinds each
 * sample from its registers over its stack copy on an unwinder thread, counting distinct traces.
 * The sampler's reader only queues samples, so that a slow start of the unwinder (class loading,
 * the first read of the process maps) never leaves a ring full; the queue is bounded
 * ({@link #QUEUE_CAPACITY}) and samples beyond it are counted as dropped. Naming the frames (ELF symbols, the JIT's code map) is slower and the same ips recur, so it
 * happens once per distinct trace when {@link #stacks()} is asked — which must be before the JIT
 * code of the profile is unloaded. {@code threads} picks the tids whose samples count;
 * {@code observer} sees every unwound sample (accuracy checks).
 */
public final class Profiler implements AutoCloseable {
    private record Key(int tid, List<Long> ips) {}

    /** About 16 MiB of queued samples with 16 KiB stack copies. */
    static final int QUEUE_CAPACITY = 1024;
    /** Ends the unwinder (compared by identity). */
    private static final List<PerfRecord.Sample> END = java.util.Collections.unmodifiableList(new ArrayList<>());

    private final Map<Key, Long> traces = new HashMap<>();
    /**
     * Batches of samples, one per reader wake-up, handed over whole: the unwinder wakes once per
     * batch. Queued one sample at a time, it woke 2.3 times per batch (24 against the reader's 10.5
     * wake-ups a second at 99 Hz), taking each sample as the reader offered the next. Bounded in
     * samples by {@link #queued}.
     */
    private final BlockingQueue<List<PerfRecord.Sample>> queue = new java.util.concurrent.LinkedBlockingQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicLong handoffs = new AtomicLong();
    private final Thread worker = new Thread(this::unwindLoop, "bpf4j-unwinder");
    private final AtomicLong dropped = new AtomicLong();
    /** Unwound samples whose every step was exact (rows, CFI), and the others (a frame-pointer guess somewhere). */
    private final AtomicLong reliable = new AtomicLong(), unreliable = new AtomicLong();
    private volatile RuntimeException failure;
    private final Sampler sampler;
    private final SampleUnwinder unwinder;
    private final Symbolizer symbolizer;
    private final IntPredicate threads;
    private final Consumer<UnwoundSample> observer;
    private volatile boolean threadRoots;
    /** Name this JVM's generated code from its perf map when the stacks are named (a profile of this process). */
    private volatile boolean jvmCodeNames;
    private volatile String jvmCodeNamesError;
    private volatile Consumer<PerfRecord.Sample> tap = s -> {};

    public Profiler(SamplerOptions options, Unwinder unwinder, Symbolizer symbolizer, IntPredicate threads, Consumer<UnwoundSample> observer) {
        this.unwinder = new SampleUnwinder(unwinder);
        this.symbolizer = symbolizer;
        this.threads = threads;
        this.observer = observer;
        // Samples of one reader wake-up go to the unwinder together: it then wakes once per batch.
        List<PerfRecord.Sample> batch = new java.util.ArrayList<>();
        this.sampler = new Sampler(options, s -> {
            tap.accept(s);
            batch.add(s);
        }).onBatchEnd(() -> {
            if (batch.isEmpty()) return;
            int room = Math.max(0, QUEUE_CAPACITY - queued.get());
            List<PerfRecord.Sample> handed = batch.size() <= room ? List.copyOf(batch) : List.copyOf(batch.subList(0, room));
            dropped.addAndGet(batch.size() - handed.size());
            batch.clear();
            if (handed.isEmpty()) return;
            queued.addAndGet(handed.size());
            handoffs.incrementAndGet();
            queue.add(handed);
        });
        worker.setDaemon(true);
    }

    /** Every thread of this process, observed by {@code observer}, unwound over {@link #processCode()}. */
    public static Profiler ofProcess(SamplerOptions options, Consumer<UnwoundSample> observer) {
        ProcessCode code = processCode();
        return new Profiler(options, new Unwinder(code), new Symbolizer(code, SyntheticFrames.global()), tid -> true, observer).withJvmCodeNames(true);
    }

    /**
     * Whether {@link #stacks()} names this JVM's own generated code (interpreter, stubs, compiled Java)
     * from the perf map HotSpot writes when asked ({@link dev.bpf4j.unwind.JvmPerfMap}), as perf names
     * a JVM's code from {@code /tmp/perf-PID.map}; otherwise such frames are {@code [unknown]}. On for
     * {@link #ofProcess}.
     */
    public Profiler withJvmCodeNames(boolean on) {
        jvmCodeNames = on;
        return this;
    }

    /** Why the last {@link #stacks()} could not name this JVM's code, or null. */
    public String jvmCodeNamesError() { return jvmCodeNamesError; }

    public static Profiler ofProcess(SamplerOptions options) { return ofProcess(options, s -> {}); }

    /**
     * This process's code as a profile sees it: the JIT's code map and the executable mappings,
     * re-read at most once a second. Java frames without frame pointers give the unwinder garbage
     * return addresses, and each such miss re-read the 600-line maps of a JVM under the process-wide
     * view's 5 ms limit: 6.7% of a CPU at 99 Hz. Libraries loaded during a profile are named within a second.
     */
    public static ProcessCode processCode() { return PROFILE_CODE; }

    private static final ProcessCode PROFILE_CODE = new ProcessCode(CodeMap.global(), ProcMaps::read, TimeUnit.SECONDS.toNanos(1));

    /** Roots each stack at its thread's name ({@code /proc/self/task/TID/comm}), as {@code perf script} shows comm. */
    public Profiler withThreadRoots() {
        threadRoots = true;
        return this;
    }

    /**
     * Also hands every sample, as read, to {@code tap} on the sampler's reader thread (it must be
     * quick: queue it); call before {@link #start}. The demo runs a perf_event program on the same samples.
     */
    public Profiler alsoTo(Consumer<PerfRecord.Sample> tap) {
        this.tap = tap;
        return this;
    }

    /** Gives thread {@code tid} its ring first ({@link Sampler#preferThread}); call before {@link #start}. */
    public Profiler preferThread(int tid) {
        sampler.preferThread(tid);
        return this;
    }

    /** Starts sampling; throws {@link dev.bpf4j.unwind.sampling.SamplingRefusedException} when refused. */
    public Profiler start() {
        worker.start();
        try {
            sampler.start();
        } catch (RuntimeException e) {
            finishWorker();
            throw e;
        }
        return this;
    }

    /** Stops sampling, waits until every queued sample is unwound; rethrows a failure of the unwinding. */
    public SamplerStats stop() {
        SamplerStats stats = sampler.stop();
        finishWorker();
        if (failure != null) throw failure;
        return stats;
    }

    /**
     * Turns sampling off or on without closing the events ({@link Sampler#setEnabled}); samples
     * read until it is off are still unwound.
     */
    public void setSampling(boolean on) { sampler.setEnabled(on); }

    /** Samples read so far, and samples the kernel reported lost. */
    public long samplesSoFar() { return sampler.samplesSoFar(); }

    public long lostSoFar() { return sampler.lostSoFar(); }

    /** The sampler's reader and the unwinder thread (CPU accounting). */
    public List<Thread> threads() { return List.of(sampler.readerThread(), worker); }

    /** Batches handed to the unwinder (one per reader wake-up with samples). */
    public long handoffs() { return handoffs.get(); }

    /** Samples read from the rings but not unwound because the queue was full. */
    public long dropped() { return dropped.get(); }

    /**
     * Unwound samples whose trace is {@linkplain StackTrace#reliable() reliable}: every step by
     * unwind rows or {@code .eh_frame}. Kept apart from the stacks: two samples with the same ips
     * count as one stack whatever their reliability.
     */
    public long reliableSamples() { return reliable.get(); }

    /** Unwound samples where some step trusted a frame pointer (Java frames, code without CFI). */
    public long unreliableSamples() { return unreliable.get(); }

    @Override public void close() {
        sampler.close();
        finishWorker();
    }

    private void finishWorker() {
        if (!worker.isAlive()) return;
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(END);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        Threads.joinUninterruptibly(worker);
        if (interrupted) Thread.currentThread().interrupt(); // the put's, kept for the caller
    }

    private void unwindLoop() {
        while (true) {
            List<PerfRecord.Sample> batch;
            try {
                batch = queue.take();
            } catch (InterruptedException e) {
                continue;   // only finishWorker ends this thread
            }
            if (batch == END) return;
            for (PerfRecord.Sample s : batch) {
                queued.decrementAndGet();
                if (failure != null) continue;
                try {
                    onSample(s);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
        }
    }

    /** The folded stacks so far, frames named now: call it while the profiled JIT code is still loaded. */
    public FoldedStacks stacks() {
        Map<Key, Long> copy;
        synchronized (traces) { copy = new HashMap<>(traces); }
        FoldedStacks out = new FoldedStacks();
        Symbolizer names = symbolizer;
        if (jvmCodeNames) {
            // Dumped now, as perf reads the map a JVM wrote at exit: compiled code is named as it is at the end.
            JvmPerfMap.Result map = JvmPerfMap.dumpSelf();
            jvmCodeNamesError = map.error();
            if (map.map().isPresent()) names = symbolizer.withPerfMap(map.map().get());
        }
        for (Map.Entry<Key, Long> e : copy.entrySet()) {
            List<Frame> frames = names.symbolize(new StackTrace(e.getKey().ips(), true));
            List<String> rootFirst = new ArrayList<>(frames.size() + 1);
            if (e.getKey().tid() >= 0) rootFirst.add(threadNameOf(e.getKey().tid()));
            for (int i = frames.size() - 1; i >= 0; i--) rootFirst.add(FrameNames.of(frames.get(i)));
            out.add(rootFirst, e.getValue());
        }
        return out;
    }

    private void onSample(PerfRecord.Sample s) {
        if (!threads.test(s.tid())) return;
        StackTrace trace = unwinder.unwind(s);
        if (trace.ips().isEmpty()) return;
        (trace.reliable() ? reliable : unreliable).incrementAndGet();
        Key key = new Key(threadRoots ? s.tid() : -1, trace.ips());
        synchronized (traces) { traces.merge(key, 1L, Long::sum); }
        if (threadRoots) threadNameOf(s.tid());
        observer.accept(new UnwoundSample(s, trace));
    }

    /** Thread names, read at a thread's first sample: it may have exited when the stacks are named. */
    private final Map<Integer, String> threadNames = new HashMap<>();

    private String threadNameOf(int tid) {
        synchronized (threadNames) { return threadNames.computeIfAbsent(tid, Profiler::threadName); }
    }

    private static String threadName(int tid) {
        try {
            String comm = Files.readString(Path.of("/proc/self/task/" + tid + "/comm")).trim();
            return FrameNames.clean(comm.isEmpty() ? "tid " + tid : comm);
        } catch (IOException e) {
            return "tid " + tid;   // the thread has exited
        }
    }
}
