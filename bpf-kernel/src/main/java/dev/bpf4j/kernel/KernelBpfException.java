package dev.bpf4j.kernel;

import dev.bpf4j.runtime.BpfException;

/**
 * A bpf(2) (or other) system call that failed: the command, the errno and, for BPF_PROG_LOAD, the
 * kernel verifier's log, which says why the program was refused.
 */
public class KernelBpfException extends BpfException {
    private final String command;
    private final int errno;
    private final String verifierLog;

    public KernelBpfException(String command, int errno, String verifierLog) {
        super(command + " failed: " + SyscallErrno.name(errno)
                + (verifierLog == null || verifierLog.isEmpty() ? "" : "\nverifier log:\n" + verifierLog));
        this.command = command;
        this.errno = errno;
        this.verifierLog = verifierLog == null ? "" : verifierLog;
    }

    /** The command that failed, e.g. {@code bpf(BPF_PROG_LOAD)}. */
    public String command() { return command; }

    public int errno() { return errno; }

    /** {@code EPERM}, {@code EINVAL}, {@code EACCES}, ... */
    public String errnoName() { return SyscallErrno.name(errno); }

    /** The kernel verifier's log (empty when there is none). */
    public String verifierLog() { return verifierLog; }
}
