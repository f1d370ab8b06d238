package dev.bpf4j.maps;

/**
 * The Linux errno values map operations and helpers return (negated, as the kernel's helpers do:
 * {@code -EEXIST} etc.).
 */
public final class Errno {
    private Errno() {}

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    /** Out of range: what copy_from_kernel_nofault returns for an address it never reads. */
    public static final int ERANGE = 34;
    public static final int EOVERFLOW = 75;
    public static final int EOPNOTSUPP = 95;
    /** Kernel-internal "operation not supported" (ringbuf lookup/update/delete return it). */
    public static final int ENOTSUPP = 524;

    /** The symbolic name of {@code errno} (positive or negative), e.g. {@code EEXIST}. */
    public static String name(int errno) {
        switch (Math.abs(errno)) {
            case EPERM: return "EPERM";
            case ENOENT: return "ENOENT";
            case E2BIG: return "E2BIG";
            case EBADF: return "EBADF";
            case EAGAIN: return "EAGAIN";
            case ERANGE: return "ERANGE";
            case ENOMEM: return "ENOMEM";
            case EFAULT: return "EFAULT";
            case EBUSY: return "EBUSY";
            case EEXIST: return "EEXIST";
            case ENODEV: return "ENODEV";
            case EINVAL: return "EINVAL";
            case ENOSPC: return "ENOSPC";
            case EOVERFLOW: return "EOVERFLOW";
            case EOPNOTSUPP: return "EOPNOTSUPP";
            case ENOTSUPP: return "ENOTSUPP";
            default: return "errno " + Math.abs(errno);
        }
    }
}
