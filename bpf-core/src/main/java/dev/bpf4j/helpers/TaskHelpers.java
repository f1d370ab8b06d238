package dev.bpf4j.helpers;

import dev.bpf4j.maps.Cpus;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.NativeMemory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Helpers about time, CPU and the current task. "Current task" is the calling Java thread: its kernel
 * tid and the process id, its {@code comm} (the native thread name the JVM sets, from
 * {@code prctl(PR_GET_NAME)}).
 */
final class TaskHelpers {
    private TaskHelpers() {}

    private static final int[] NODE_OF_CPU = readNodes();

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
        add(b, HelperIds.GET_SMP_PROCESSOR_ID, "bpf_get_smp_processor_id", (call, r1, r2, r3, r4, r5) -> Cpus.current(),
                Cpus.currentFunction() == 0 ? null : new NativeForm.CurrentCpu(Cpus.currentFunction(), Cpus.possible()));
        b.add(HelperIds.GET_NUMA_NODE_ID, "bpf_get_numa_node_id", (call, r1, r2, r3, r4, r5) -> numaNode(Cpus.current()));
        add(b, HelperIds.GET_CURRENT_PID_TGID, "bpf_get_current_pid_tgid",
                (call, r1, r2, r3, r4, r5) -> Libc.getpid() << 32 | (Libc.gettid() & 0xffffffffL), Libc.pidTgid());
        b.add(HelperIds.GET_CURRENT_COMM, "bpf_get_current_comm", (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_get_current_comm buf (r1)", r1, size, true);
            if (size == 0) return 0;
            // strscpy_pad: at most size - 1 name bytes, then NUL padding to size
            byte[] comm = Libc.comm();
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
