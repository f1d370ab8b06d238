package dev.bpf4j.unwind.sampling;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * perf_event_open or its ring mapping was refused; the message says why and what to change
 * ({@code kernel.perf_event_paranoid}, capabilities, {@code kernel.perf_event_mlock_kb}, seccomp).
 */
public final class SamplingRefusedException extends RuntimeException {
    private static final int EPERM = 1, ENOENT = 2, ESRCH = 3, EACCES = 13, ENODEV = 19, EINVAL = 22, ENOSYS = 38, EOPNOTSUPP = 95;

    public SamplingRefusedException(String message) { super(message); }

    /** perf_event_open failed with {@code errno}. */
    static SamplingRefusedException open(int errno) {
        String paranoid = sysctl("perf_event_paranoid");
        switch (errno) {
            case EACCES:
            case EPERM:
                return new SamplingRefusedException("perf_event_open refused (" + name(errno) + "): kernel.perf_event_paranoid is " + paranoid
                        + "; sampling this process's own user space needs kernel.perf_event_paranoid <= 2 (sudo sysctl kernel.perf_event_paranoid=2)"
                        + " or CAP_PERFMON / CAP_SYS_ADMIN; in a container the runtime's seccomp profile may also refuse it");
            case ENOSYS:
                return new SamplingRefusedException("perf_event_open is not available (ENOSYS): the kernel lacks CONFIG_PERF_EVENTS or a seccomp filter"
                        + " (a container's default profile) blocks it; allow perf_event_open or run with --privileged/CAP_PERFMON");
            case ENOENT:
            case ENODEV:
            case EOPNOTSUPP:
                return new SamplingRefusedException("perf_event_open: the software cpu-clock event is not supported here (" + name(errno) + ")");
            case EINVAL:
                return new SamplingRefusedException("perf_event_open rejected the attributes (EINVAL): the frequency may exceed kernel.perf_event_max_sample_rate ("
                        + sysctl("perf_event_max_sample_rate") + ") or the stack size is too large");
            default:
                return new SamplingRefusedException("perf_event_open failed: " + name(errno));
        }
    }

    /** mmap of an event's ring failed with {@code errno}. */
    static SamplingRefusedException mmap(int errno, long bytes) {
        return new SamplingRefusedException("mmap of a " + bytes / 1024 + " KiB perf ring refused (" + name(errno) + "): without CAP_IPC_LOCK the rings of all threads"
                + " must fit kernel.perf_event_mlock_kb (" + sysctl("perf_event_mlock_kb") + " KiB per user) plus RLIMIT_MEMLOCK (ulimit -l);"
                + " use fewer data pages or raise the limit");
    }

    static boolean threadGone(int errno) { return errno == ESRCH; }

    static String name(int errno) {
        switch (errno) {
            case EPERM: return "EPERM";
            case ENOENT: return "ENOENT";
            case ESRCH: return "ESRCH";
            case EACCES: return "EACCES";
            case ENODEV: return "ENODEV";
            case EINVAL: return "EINVAL";
            case ENOSYS: return "ENOSYS";
            case EOPNOTSUPP: return "EOPNOTSUPP";
            default: return "errno " + errno;
        }
    }

    /**
     * A sysctl's value, read in one read(2): an int sysctl returns nothing at a non-zero offset, so
     * a reader that starts with one byte (Files.readString does) gets "5" of "516".
     */
    static String sysctl(String name) {
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/kernel/" + name))) {
            return new String(in.readNBytes(64), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
