package dev.bpf4j.kernel;

/**
 * BPF_PROG_TEST_RUN output. {@code retval} is the low 32 bits of r0 (the attr field is a
 * {@code __u32}); {@code duration} is ns per run (0 for program types that do not time runs).
 * {@code dataOut}/{@code ctxOut} hold what the kernel wrote to the out buffers (as many bytes as it
 * reported); {@code ctxIn} is the ctx_in buffer after the run, where BPF_PROG_TYPE_SYSCALL writes
 * its context back.
 */
public record TestRunResult(int retval, int duration, byte[] dataOut, byte[] ctxOut, byte[] ctxIn) {
    public long retvalUnsigned() { return retval & 0xffffffffL; }
}
