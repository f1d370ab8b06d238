package dev.bpf4j.kernel;

/**
 * BPF_PROG_TEST_RUN input: {@code data_in} (packet for skb/xdp programs), a {@code data_out} buffer
 * size, {@code ctx_in} and a {@code ctx_out} buffer size, and {@code repeat}. Null or 0 means
 * "not passed" (BPF_PROG_TYPE_SYSCALL refuses data, ctx_out and repeat with EINVAL).
 */
public record TestRunRequest(byte[] dataIn, int dataOutSize, byte[] ctxIn, int ctxOutSize, int repeat) {
    public TestRunRequest {
        if (dataOutSize < 0 || ctxOutSize < 0 || repeat < 0) throw new IllegalArgumentException("negative size or repeat");
    }

    /** Only a context, as BPF_PROG_TYPE_SYSCALL takes it (the kernel copies it back into ctx_in). */
    public static TestRunRequest ofContext(byte[] ctxIn) { return new TestRunRequest(null, 0, ctxIn, 0, 0); }

    /** No input at all. */
    public static TestRunRequest empty() { return new TestRunRequest(null, 0, null, 0, 0); }
}
