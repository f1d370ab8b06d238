package dev.bpf4j.unwind.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code comm} (thread name, at most 15 bytes) of sampled threads, from
 * {@code /proc/PID/task/TID/comm}, which is what Linux's {@code current->comm} holds when it runs a
 * perf_event program on the sampled thread. A name read is kept for {@link #MAX_AGE_NANOS}: threads
 * rename themselves (the JVM names a thread just after it starts), but a file read per sample would
 * cost more than the sample. The last name of a thread that has exited is kept, so samples replayed
 * after the thread is gone still see it; a thread never read before its exit gets its process's name.
 */
public final class TaskComms {
    /** How long a name read stays good (a rescan of the threads takes as long: 250 ms). */
    public static final long MAX_AGE_NANOS = 100_000_000L;

    private static final TaskComms SHARED = new TaskComms(Path.of("/proc"));

    private record Read(byte[] comm, long atNanos) {}

    private final Path proc;
    private final ConcurrentHashMap<Long, Read> byTask = new ConcurrentHashMap<>();

    /** @param proc where procfs is (a directory laid out as /proc, for tests) */
    public TaskComms(Path proc) { this.proc = proc; }

    /** One cache for the whole process. */
    public static TaskComms shared() { return SHARED; }

    /** Thread {@code tid}'s name in process {@code pid}, without the newline; empty when unknown. */
    public byte[] comm(int pid, int tid) {
        long key = (long) pid << 32 | (tid & 0xffffffffL);
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
    public void forget(int pid) { byTask.keySet().removeIf(k -> (int) (k >>> 32) == pid); }

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
