package dev.bpf4j.runtime;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The task a run stands for — Linux's {@code current} — when it is not the calling thread: a
 * perf_event program runs in the kernel on the sampled thread, so {@code bpf_get_current_pid_tgid},
 * {@code bpf_get_current_comm}, {@code bpf_get_smp_processor_id} and {@code bpf_get_numa_node_id}
 * describe that thread, not the one that replays the sample. Kernel vocabulary: {@code pid} is the
 * thread id, {@code tgid} the process id. The name is looked up once, on first use, so a program
 * that never asks for it costs no file read, and every engine replaying the same sample sees the
 * same name.
 */
public final class CurrentTask {
    /** {@code TASK_COMM_LEN}. */
    public static final int COMM_LEN = 16;

    private final int tgid;
    private final int pid;
    private final int cpu;
    private final Supplier<byte[]> commSource;
    private byte[] comm;

    /**
     * @param cpu        the CPU the task ran on (-1: unknown, then the helpers answer 0)
     * @param commSource the task's name, at most {@value #COMM_LEN} bytes, NUL-terminated or not
     */
    public CurrentTask(int tgid, int pid, int cpu, Supplier<byte[]> commSource) {
        this.tgid = tgid;
        this.pid = pid;
        this.cpu = cpu;
        this.commSource = Objects.requireNonNull(commSource);
    }

    public int tgid() { return tgid; }

    public int pid() { return pid; }

    public int cpu() { return cpu; }

    /** {@code bpf_get_current_pid_tgid}: tgid in the upper 32 bits, pid in the lower. */
    public long pidTgid() { return (long) tgid << 32 | (pid & 0xffffffffL); }

    /** The task's {@code comm} (a copy), looked up on the first call. */
    public byte[] comm() {
        if (comm == null) {
            byte[] c = commSource.get();
            comm = c.length > COMM_LEN ? java.util.Arrays.copyOf(c, COMM_LEN) : c.clone();
        }
        return comm.clone();
    }

    @Override public String toString() { return "task " + pid + " of " + tgid + " on cpu " + cpu; }
}
