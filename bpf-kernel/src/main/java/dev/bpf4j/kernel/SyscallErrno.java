package dev.bpf4j.kernel;

/** Names of the errno values bpf(2) and mount(2) return (asm-generic/errno-base.h, errno.h, linux/errno.h). */
public final class SyscallErrno {
    private SyscallErrno() {}

    public static final int EPERM = 1, ENOENT = 2, E2BIG = 7, EBADF = 9, EAGAIN = 11, ENOMEM = 12,
            EACCES = 13, EFAULT = 14, EBUSY = 16, EEXIST = 17, EINVAL = 22, ENOSPC = 28, ENOSYS = 38,
            EOPNOTSUPP = 95, ENOTSUPP = 524;

    private static final String[] BASE = {
        null, "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
        "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV",
        "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE",
        "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY",
        "ELOOP",
    };

    /** {@code EINVAL} for 22; {@code errno 1234} for numbers without a name here. */
    public static String name(int errno) {
        if (errno > 0 && errno < BASE.length) return BASE[errno];
        switch (errno) {
            case 95: return "EOPNOTSUPP";
            case 524: return "ENOTSUPP"; // kernel-internal, but bpf() lets it escape
            case 75: return "EOVERFLOW";
            case 90: return "EMSGSIZE";
            case 61: return "ENODATA";
            default: return "errno " + errno;
        }
    }
}
