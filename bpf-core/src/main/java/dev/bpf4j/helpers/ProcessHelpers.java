package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Helpers about the current task that a JVM thread can answer exactly as the kernel answers for it (the
 * thread that runs the program is the kernel's {@code current} of a test run): its uid and gid, its pid
 * namespace, its cgroup v2 ids (for {@code bpf_skb_cgroup_id} too: a test run's skb belongs to a socket
 * allocated by the calling task, in its cgroup), and {@code bpf_copy_from_user} from its memory.
 */
final class ProcessHelpers {
    private ProcessHelpers() {}

    /** sizeof(struct bpf_pidns_info): u32 pid, u32 tgid. */
    static final int PIDNS_INFO_SIZE = 8;

    static void register(HelperRegistry.Builder b, ProbeMemory mem) {
        b.add(HelperIds.GET_CURRENT_UID_GID, "bpf_get_current_uid_gid",
                (call, r1, r2, r3, r4, r5) -> credential("Gid:") << 32 | credential("Uid:"));
        b.add(HelperIds.GET_NS_CURRENT_PID_TGID, "bpf_get_ns_current_pid_tgid", ProcessHelpers::nsPidTgid);
        b.add(HelperIds.GET_CURRENT_CGROUP_ID, "bpf_get_current_cgroup_id",
                (call, r1, r2, r3, r4, r5) -> cgroup(call, Cgroups::currentId));
        b.add(HelperIds.GET_CURRENT_ANCESTOR_CGROUP_ID, "bpf_get_current_ancestor_cgroup_id",
                (call, r1, r2, r3, r4, r5) -> cgroup(call, () -> Cgroups.ancestorId(r1 & 0xffffffffL)));
        b.add(HelperIds.SKB_CGROUP_ID, "bpf_skb_cgroup_id", (call, r1, r2, r3, r4, r5) -> {
            Packets.of(call, "bpf_skb_cgroup_id", r1, PacketBuffer.Kind.SKB);
            return cgroup(call, Cgroups::currentId);
        });
        b.add(HelperIds.SKB_ANCESTOR_CGROUP_ID, "bpf_skb_ancestor_cgroup_id", (call, r1, r2, r3, r4, r5) -> {
            Packets.of(call, "bpf_skb_ancestor_cgroup_id", r1, PacketBuffer.Kind.SKB);
            return cgroup(call, () -> Cgroups.ancestorId(r2 & 0xffffffffL));
        });
        b.add(HelperIds.COPY_FROM_USER, "bpf_copy_from_user", (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_copy_from_user dst (r1)", r1, size, true);
            return copyFromUser(call, mem, r1, size, r3);
        });
    }

    /**
     * bpf_copy_from_user(dst, u32 size, user_ptr): 0, or -EFAULT with dst zeroed. What the run's regions and
     * frames hold (ctx, stack, map values) is kernel memory to Linux, which copy_from_user refuses: so here.
     */
    static long copyFromUser(HelperCall call, ProbeMemory mem, long dst, long size, long src) {
        if (size == 0) return 0;
        boolean kernelSide = call.accessible(src, 1, false) || call.accessible(src + size - 1, 1, false);
        if (!kernelSide && mem.mode() == ProbeMemory.Mode.PROCESS && Libc.readProcessMemory(dst, src, size)) return 0;
        NativeMemory.setMemory(dst, size, (byte) 0);
        return -Errno.EFAULT;
    }

    /**
     * bpf_get_ns_current_pid_tgid(u64 dev, u64 ino, struct bpf_pidns_info *nsdata, u32 size): the thread's
     * pid and tgid in its own pid namespace when (dev, ino) name that namespace (as stat of /proc/self/ns/pid
     * gives them), else -EINVAL with nsdata zeroed.
     */
    static long nsPidTgid(HelperCall call, long dev, long ino, long nsdata, long r4, long r5) {
        long size = r4 & 0xffffffffL;
        call.checkArgument(3, "bpf_get_ns_current_pid_tgid nsdata (r3)", nsdata, size, true);
        if (size == PIDNS_INFO_SIZE && (dev & 0xffffffffL) == dev) {
            try {
                Path ns = Path.of("/proc/thread-self/ns/pid");
                long nsDev = ((Number) Files.getAttribute(ns, "unix:dev")).longValue();
                long nsIno = ((Number) Files.getAttribute(ns, "unix:ino")).longValue();
                if (nsDev == dev && nsIno == ino) {
                    NativeMemory.putInt(nsdata, (int) Libc.gettid());
                    NativeMemory.putInt(nsdata + 4, (int) Libc.getpid());
                    return 0;
                }
            } catch (IOException | UnsupportedOperationException e) {
                throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0,
                        "bpf_get_ns_current_pid_tgid: cannot stat /proc/thread-self/ns/pid: " + e.getMessage());
            }
        }
        NativeMemory.setMemory(nsdata, size, (byte) 0);
        return -Errno.EINVAL;
    }

    /** The real uid or gid (the first number of /proc/thread-self/status's "Uid:" / "Gid:" line): current_cred()->uid / gid. */
    private static long credential(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith(key)) return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]) & 0xffffffffL;
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read " + key + " from /proc/thread-self/status: " + e.getMessage(), e);
        }
        throw new IllegalStateException("/proc/thread-self/status has no " + key + " line");
    }

    private static long cgroup(HelperCall call, LongSupplier id) {
        try {
            return id.getAsLong();
        } catch (IllegalStateException e) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0, e.getMessage());
        }
    }
}
