package dev.bpf4j.fuzz;

import dev.bpf4j.maps.CpuPin;
import dev.bpf4j.maps.Cpus;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.Consumer;

/**
 * The threads of a campaign: indices 0, 1, 2, ... go to {@code jobs} workers until a count or a deadline,
 * and a watchdog reports progress every 2 s and each worker hung in one case: one that has used more than
 * {@link Limits#hangAfter} ({@link Campaign#HANG_AFTER} by default) of its thread's CPU time, or has not
 * ended in {@link #BLOCKED_FACTOR} times that of wall time (an engine waiting forever uses no CPU). CPU
 * time, not wall time, because other processes on a loaded machine stretch wall time: a 1.5 s verifier
 * run took over 20 s of wall time at load average 16 and was reported as a hang. The campaign does not
 * wait for a hung worker (its thread is a daemon): a fuzzer must end even when an engine does not.
 */
final class Workers {
    /** One case: {@code busy} names it to the watchdog while it runs. */
    interface Task {
        void run(long index, Busy busy);
    }

    /** What one worker is busy with. */
    interface Busy {
        void start(String origin);

        void end();
    }

    /** How many cases and for how long; {@code pinned}: each worker stays on one CPU, as Linux keeps a test run on one. */
    record Limits(Long count, Duration time, int jobs, boolean pinned, Duration hangAfter) {
        Limits {
            if (count == null && time == null) throw new IllegalArgumentException("a campaign needs a count or a time");
            if (jobs < 1) throw new IllegalArgumentException("jobs must be at least 1");
        }

        Limits(Long count, Duration time, int jobs, boolean pinned) {
            this(count, time, jobs, pinned, Campaign.HANG_AFTER);
        }
    }

    /** Wall time a case may take, in multiples of {@link Limits#hangAfter}, before it counts as hung while not running. */
    static final int BLOCKED_FACTOR = 6;

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private final long[] busySince;
    private final long[] cpuSince;
    private final String[] busyWith;

    private Workers(int jobs) {
        busySince = new long[jobs];
        cpuSince = new long[jobs];
        busyWith = new String[jobs];
    }

    /**
     * Runs {@code task} for every index until the limits are reached. {@code onHang} is called once each time
     * a worker becomes hung; {@code progressLine} is printed to {@code progress} every 2 s.
     */
    static void run(String threadName, Limits limits, Task task, Runnable onHang, Consumer<String> progress, Supplier<String> progressLine) {
        Workers w = new Workers(limits.jobs());
        AtomicLong next = new AtomicLong();
        long deadline = limits.time() == null ? Long.MAX_VALUE : System.nanoTime() + limits.time().toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int j = 0; j < limits.jobs(); j++) {
            int job = j;
            Busy busy = w.busy(job);
            Thread t = new Thread(() -> {
                if (limits.pinned() && !CpuPin.pin(job)) CpuPin.pin(Cpus.current());
                while (System.nanoTime() < deadline) {
                    long i = next.getAndIncrement();
                    if (limits.count() != null && i >= limits.count()) break;
                    task.run(i, busy);
                }
            }, threadName + "-" + j);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        w.watch(threads, limits.hangAfter(), onHang, progress, progressLine);
    }

    private Busy busy(int job) {
        return new Busy() {
            @Override public void start(String origin) {
                long cpu = CPU.getCurrentThreadCpuTime();
                synchronized (busySince) { busySince[job] = System.nanoTime(); cpuSince[job] = cpu; busyWith[job] = origin; }
            }

            @Override public void end() {
                synchronized (busySince) { busySince[job] = 0; }
            }
        };
    }

    /** Returns when every worker has ended or is hung. */
    private void watch(List<Thread> threads, Duration hangAfter, Runnable onHang, Consumer<String> progress, Supplier<String> progressLine) {
        boolean[] hung = new boolean[threads.size()];
        long lastProgress = System.nanoTime();
        while (true) {
            boolean waiting = false;
            synchronized (busySince) {
                for (int j = 0; j < threads.size(); j++) {
                    if (!threads.get(j).isAlive()) continue;
                    boolean busy = busySince[j] != 0;
                    boolean running = busy && CPU.getThreadCpuTime(threads.get(j).getId()) - cpuSince[j] > hangAfter.toNanos();
                    boolean stuck = busy && System.nanoTime() - busySince[j] > BLOCKED_FACTOR * hangAfter.toNanos();
                    boolean now = running || stuck;
                    if (now && !hung[j]) {
                        onHang.run();
                        progress.accept("hang: " + busyWith[j] + (running ? " has run for more than " + hangAfter.toMillis() + " ms of CPU time"
                                : " has not ended in " + BLOCKED_FACTOR * hangAfter.toMillis() + " ms"));
                    }
                    hung[j] = now;
                    if (!now) waiting = true;
                }
            }
            if (!waiting) return;
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (System.nanoTime() - lastProgress > 2_000_000_000L) {
                lastProgress = System.nanoTime();
                progress.accept(progressLine.get());
            }
        }
    }

    /** A per-class quota: true while fewer than {@code limit} of {@code cls} have been claimed. */
    static final class Quota {
        private final Map<String, Integer> claimed = new HashMap<>();
        private final int limit;

        Quota(int limit) {
            this.limit = limit;
        }

        synchronized boolean claim(String cls) {
            int n = claimed.getOrDefault(cls, 0);
            if (n >= limit) return false;
            claimed.put(cls, n + 1);
            return true;
        }
    }
}
