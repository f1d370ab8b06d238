package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.runtime.CurrentTask;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.NativeMemory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Helpers about time, CPU and the current task. "Current task" is the run's {@link CurrentTask} when it
 * has one (a perf_event program's sampled thread, as Linux runs the program on that thread), else the
 * calling Java thread: its kernel tid and the process id, its {@code comm} (the native thread name the
 * JVM sets, from {@code prctl(PR_GET_NAME)}) and the CPU it runs on.
 */
final class TaskHelpers {
    private TaskHelpers() {}

    private static final int[] NODE_OF_CPU = readNodes();

    /**
     * The helpers whose answer depends on the current task: a run with a {@link CurrentTask} of its own
     * needs their Java bodies, since their native forms ask the calling thread.
     */
    static final Set<Integer> OF_CURRENT_TASK = Set.of(HelperIds.GET_SMP_PROCESSOR_ID, HelperIds.GET_NUMA_NODE_ID,
            HelperIds.GET_CURRENT_PID_TGID, HelperIds.GET_CURRENT_COMM);

    /** The run's own task, or null for the calling thread. */
    private static CurrentTask task(HelperCall call) {
        if (call == null) return null; // a body called directly, outside any run (tests)
        var ctx = call.runContext();
        return ctx == null ? null : ctx.task().orElse(null);
    }

    /** {@code Cpus.current}, or the task's CPU (0 when unknown, as Cpus.current answers an error). */
    private static int cpu(HelperCall call) {
        CurrentTask t = task(call);
        if (t == null) return Cpus.current();
        return t.cpu() >= 0 && t.cpu() < Cpus.possible() ? t.cpu() : 0;
    }

    /** A helper with its native form where this machine has one, else the Java body alone. */
    private static void add(HelperRegistry.Builder b, int id, String name, Helper body, NativeForm form) {
        if (form == null) b.add(id, name, body);
        else b.addNative(id, name, body, form);
    }

    static void register(HelperRegistry.Builder b) {
        // CLOCK_MONOTONIC: System.nanoTime() on Linux.
        add(b, HelperIds.KTIME_GET_NS, "bpf_ktime_get_ns", (call, r1, r2, r3, r4, r5) -> System.nanoTime(),
                Libc.clockForm(Libc.CLOCK_MONOTONIC));
        add(b, HelperIds.KTIME_GET_BOOT_NS, "bpf_ktime_get_boot_ns", (call, r1, r2, r3, r4, r5) -> Libc.bootTimeNs(), Libc.bootTimeForm());
        add(b, HelperIds.GET_PRANDOM_U32, "bpf_get_prandom_u32",
                (call, r1, r2, r3, r4, r5) -> ThreadLocalRandom.current().nextInt() & 0xffffffffL, Libc.prandom());
        add(b, HelperIds.GET_SMP_PROCESSOR_ID, "bpf_get_smp_processor_id", (call, r1, r2, r3, r4, r5) -> cpu(call),
                Cpus.currentFunction() == 0 ? null : new NativeForm.CurrentCpu(Cpus.currentFunction(), Cpus.possible()));
        b.add(HelperIds.GET_NUMA_NODE_ID, "bpf_get_numa_node_id", (call, r1, r2, r3, r4, r5) -> numaNode(cpu(call)));
        add(b, HelperIds.GET_CURRENT_PID_TGID, "bpf_get_current_pid_tgid",
                (call, r1, r2, r3, r4, r5) -> {
                    CurrentTask t = task(call);
                    return t != null ? t.pidTgid() : Libc.getpid() << 32 | (Libc.gettid() & 0xffffffffL);
                }, Libc.pidTgid());
        b.add(HelperIds.GET_CURRENT_COMM, "bpf_get_current_comm", (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_get_current_comm buf (r1)", r1, size, true);
            if (size == 0) return 0;
            // strscpy_pad: at most size - 1 name bytes, then NUL padding to size
            CurrentTask t = task(call);
            byte[] comm = t != null ? t.comm() : Libc.comm();
            int len = 0;
            while (len < comm.length && comm[len] != 0) len++;
            int n = (int) Math.min(len, size - 1);
            NativeMemory.setMemory(r1, size, (byte) 0);
            NativeMemory.write(r1, comm, 0, n);
            return 0;
        });
    }

    static int numaNode(int cpu) { return cpu >= 0 && cpu < NODE_OF_CPU.length ? NODE_OF_CPU[cpu] : 0; }

    /** cpu -> node from /sys/devices/system/node/node{N}/cpulist; all 0 when absent. */
    private static int[] readNodes() {
        int[] node = new int[Cpus.possible()];
        Path dir = Path.of("/sys/devices/system/node");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "node[0-9]*")) {
            for (Path p : ds) {
                int n = Integer.parseInt(p.getFileName().toString().substring(4));
                for (String part : Files.readString(p.resolve("cpulist")).trim().split(",")) {
                    if (part.isEmpty()) continue;
                    int dash = part.indexOf('-');
                    int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
                    int hi = Integer.parseInt(dash < 0 ? part : part.substring(dash + 1));
                    for (int c = lo; c <= hi && c < node.length; c++) node[c] = n;
                }
            }
        } catch (IOException | RuntimeException e) {
            // no NUMA information: every CPU on node 0
        }
        return node;
    }
}
