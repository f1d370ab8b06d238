package dev.bpf4j.unwind.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code comm} (thread name, at most 15 bytes) of sampled threads: what Linux's
 * {@code current->comm} holds when it runs a perf_event program on the sampled thread.
 *
 * <p>A thread the sampler {@linkplain #follow follows} has its name read from
 * {@code /proc/PID/task/TID/comm} once, when its event opens; from then on the kernel reports each
 * rename and exec of it in the ring ({@link PerfRecord.Comm}, timed like the samples), so the name a
 * sample gets is the one in force at the sample's time, however late the program asks. The names of
 * a thread that has exited are kept, so samples replayed after the thread is gone still see them.
 *
 * <p>Other threads (samples made without a sampler) are read from procfs and the read kept for
 * {@link #MAX_AGE_NANOS}; a thread never read before its exit gets its process's name.
 */
public final class TaskComms {
    /** How long a name read for a thread not followed stays good. */
    public static final long MAX_AGE_NANOS = 100_000_000L;
    /** Renames kept per followed thread; older ones are folded into the first name. */
    static final int MAX_RENAMES = 64;

    private static final TaskComms SHARED = new TaskComms(Path.of("/proc"));

    private record Read(byte[] comm, long atNanos) {}

    /** A followed thread's names by the time each took effect (the first: always). */
    private static final class History {
        private final NavigableMap<Long, byte[]> since = new TreeMap<>();

        History(byte[] first) { since.put(Long.MIN_VALUE, first); }

        synchronized void renamed(long time, byte[] comm) {
            since.put(time, comm);
            if (since.size() > MAX_RENAMES) { // the oldest kept rename now stands for all before it
                since.pollFirstEntry();
                since.put(Long.MIN_VALUE, since.pollFirstEntry().getValue());
            }
        }

        synchronized byte[] at(long time) { return since.floorEntry(time).getValue(); }
    }

    private final Path proc;
    private final ConcurrentHashMap<Long, Read> byTask = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, History> followed = new ConcurrentHashMap<>();

    /** @param proc where procfs is (a directory laid out as /proc, for tests) */
    public TaskComms(Path proc) { this.proc = proc; }

    /** One cache for the whole process. */
    public static TaskComms shared() { return SHARED; }

    private static long key(int pid, int tid) { return (long) pid << 32 | (tid & 0xffffffffL); }

    /**
     * Thread {@code tid} of process {@code pid} is sampled with rename records from now on: its name is
     * read once here (its process's name when the thread is already gone).
     */
    public void follow(int pid, int tid) {
        followed.computeIfAbsent(key(pid, tid), k -> {
            byte[] c = read(proc.resolve(pid + "/task/" + tid + "/comm"));
            if (c == null) c = read(proc.resolve(pid + "/comm"));
            return new History(c == null ? new byte[0] : c);
        });
    }

    /** The kernel reported a rename or exec: applies from the record's time on to a followed thread. */
    public void renamed(PerfRecord.Comm r) {
        History h = followed.get(key(r.pid(), r.tid()));
        if (h == null) { // an exec makes the execing thread the leader: its new tid was never followed
            follow(r.pid(), r.tid());
            h = followed.get(key(r.pid(), r.tid()));
        }
        h.renamed(r.time(), r.comm().clone());
    }

    /** Thread {@code tid}'s name at {@code time} (CLOCK_MONOTONIC, a sample's time); empty when unknown. */
    public byte[] comm(int pid, int tid, long time) {
        History h = followed.get(key(pid, tid));
        return h != null ? h.at(time).clone() : comm(pid, tid);
    }

    /** Thread {@code tid}'s name in process {@code pid} now, without the newline; empty when unknown. */
    public byte[] comm(int pid, int tid) {
        long key = key(pid, tid);
        History h = followed.get(key);
        if (h != null) return h.at(Long.MAX_VALUE).clone();
        long now = System.nanoTime();
        Read r = byTask.get(key);
        if (r == null || now - r.atNanos() > MAX_AGE_NANOS) {
            byte[] c = read(proc.resolve(pid + "/task/" + tid + "/comm"));
            if (c == null && r == null) c = read(proc.resolve(pid + "/comm"));
            if (c != null) byTask.put(key, r = new Read(c, now));
            else if (r == null) return new byte[0];
        }
        return r.comm().clone();
    }

    /** Forgets the names of process {@code pid}'s threads (it has exited: its tids may come back). */
    public void forget(int pid) {
        byTask.keySet().removeIf(k -> (int) (k >>> 32) == pid);
        followed.keySet().removeIf(k -> (int) (k >>> 32) == pid);
    }

    private static byte[] read(Path p) {
        try {
            byte[] b = Files.readAllBytes(p);
            int n = b.length;
            while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == 0)) n--;
            return Arrays.copyOf(b, Math.min(n, 15));
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
