package dev.bpf4j.kernel;

/** A program loaded into the kernel, owned through its fd. */
public final class KernelProgram implements AutoCloseable {
    private final int fd;
    private final String name;
    private boolean closed;

    private KernelProgram(int fd, String name) {
        this.fd = fd;
        this.name = name;
    }

    /** BPF_PROG_LOAD; a refusal throws {@link KernelBpfException} with the verifier log. */
    public static KernelProgram load(ProgLoadRequest request) {
        return new KernelProgram(BpfSyscall.progLoad(request), request.name());
    }

    public int fd() { return fd; }
    public String name() { return name; }

    public TestRunResult testRun(TestRunRequest request) { return BpfSyscall.progTestRun(fd, request); }

    public ProgInfo info() { return BpfSyscall.progInfo(fd); }

    @Override public void close() {
        if (!closed) {
            closed = true;
            BpfSyscall.close(fd);
        }
    }
}
