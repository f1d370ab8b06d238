package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The fallback where perf_event_open is refused: samples the Java stack of one thread at a fixed
 * rate with {@link Thread#getStackTrace()} and counts folded stacks of {@code Class.method} frames.
 * It sees only Java frames, and only at safepoints (the usual bias of such samplers): native and
 * JIT code show as the Java method that called into them.
 */
public final class JavaStackSampler implements AutoCloseable {
    private final FoldedStacks stacks = new FoldedStacks();
    private final Thread target;
    private final long periodNanos;
    private final Thread sampler;
    private volatile boolean stopping;
    private long samples;

    public JavaStackSampler(Thread target, long hz) {
        if (hz <= 0 || hz > 10_000) throw new IllegalArgumentException("frequency " + hz + " Hz: expected 1 .. 10000");
        this.target = target;
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / hz;
        this.sampler = new Thread(this::loop, "bpf4j-java-sampler");
        sampler.setDaemon(true);
    }

    public JavaStackSampler start() {
        sampler.start();
        return this;
    }

    /** Stops and returns how many samples were taken. */
    public long stop() {
        stopping = true;
        Threads.joinUninterruptibly(sampler);
        return samples;
    }

    @Override public void close() { stop(); }

    public FoldedStacks stacks() { return stacks; }

    /** {@code Class.method}; a lambda's hidden class loses its per-run address ({@code Foo$$Lambda$44/0x...} becomes {@code Foo$$Lambda}). */
    static String name(StackTraceElement e) {
        String cls = HIDDEN_SUFFIX.matcher(e.getClassName()).replaceAll("");
        return FrameNames.clean(cls + "." + e.getMethodName());
    }

    private static final java.util.regex.Pattern HIDDEN_SUFFIX = java.util.regex.Pattern.compile("\\$\\d+/0x[0-9a-f]+$");

    private void loop() {
        long next = System.nanoTime();
        while (!stopping && target.isAlive()) {
            StackTraceElement[] trace = target.getStackTrace();
            if (trace.length > 0 && target.getState() == Thread.State.RUNNABLE) {
                List<String> rootFirst = new ArrayList<>(trace.length);
                for (int i = trace.length - 1; i >= 0; i--) rootFirst.add(name(trace[i]));
                stacks.add(rootFirst);
                samples++;
            }
            next += periodNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            else next = System.nanoTime();
        }
    }
}
