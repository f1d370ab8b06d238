package dev.bpf4j.kernel;

/** The kernel refused to load a program: its verifier's log says why. */
public final class KernelRejectedException extends KernelLoadException {
    private final String program;
    private final int errno;
    private final String verifierLog;

    public KernelRejectedException(String program, KernelBpfException cause) {
        super("program '" + program + "': the kernel verifier rejected it (" + cause.errnoName() + ")"
                + (cause.verifierLog().isEmpty() ? "" : ":\n" + cause.verifierLog()), cause);
        this.program = program;
        this.errno = cause.errno();
        this.verifierLog = cause.verifierLog();
    }

    public String program() { return program; }
    public int errno() { return errno; }
    public String errnoName() { return SyscallErrno.name(errno); }

    /** The kernel verifier's log; its last lines name the failing instruction and the reason. */
    public String verifierLog() { return verifierLog; }
}
