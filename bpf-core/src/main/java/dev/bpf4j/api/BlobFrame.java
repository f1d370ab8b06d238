package dev.bpf4j.api;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * A context without packet pointers, copied from {@code ctx_in}: {@code struct pt_regs} (kprobe),
 * {@code struct bpf_perf_event_data} (perf_event), the u64 argument array of raw tracepoints and
 * tracing programs, or a syscall program's user context (writable and copied back, as the kernel does).
 */
final class BlobFrame extends RunFrame {
    private final String struct;
    private final int size;
    private final boolean writable;
    private final boolean copiedBack;
    private final boolean empty;

    private BlobFrame(String struct, byte[] bytes, int size, boolean writable, boolean copiedBack) {
        super(size, false);
        this.struct = struct;
        this.size = size;
        this.writable = writable;
        this.copiedBack = copiedBack;
        this.empty = size == 0;
        if (bytes != null) NativeMemory.write(base(), bytes, 0, Math.min(bytes.length, size));
    }

    /** A fixed-size UAPI struct of which {@code ctxIn} is a prefix (zero-filled). */
    static BlobFrame struct(String program, String struct, int size, byte[] ctxIn) {
        byte[] bytes = new Ctx(program, struct, ctxIn == null ? new byte[0] : ctxIn, size).bytes();
        return new BlobFrame(struct, bytes, size, false, false);
    }

    /** Raw tracepoint / tracing arguments: up to 12 u64 (MAX_BPF_FUNC_ARGS), as ctx_in gives them. */
    static BlobFrame args(String program, byte[] ctxIn) {
        int n = ctxIn == null ? 0 : ctxIn.length;
        if (n > 12 * 8 || n % 8 != 0) {
            throw new IllegalArgumentException(program + ": raw tracepoint ctx_in must be up to 12 u64 arguments, not " + n + " bytes");
        }
        return new BlobFrame("u64 args[]", ctxIn, n, false, false);
    }

    /** A syscall program's user context: r1 = NULL without ctx_in, else a writable copy returned as ctx_out. */
    static BlobFrame user(String program, byte[] ctxIn) {
        int n = ctxIn == null ? 0 : ctxIn.length;
        if (n > 0xffff) throw new IllegalArgumentException(program + ": syscall ctx_in is limited to 65535 bytes (U16_MAX)");
        return new BlobFrame("user ctx", ctxIn, n, true, n > 0);
    }

    @Override long ctx() { return empty ? 0 : base(); }

    @Override List<MemoryRegion> regions() {
        return empty ? List.of() : List.of(new MemoryRegion(struct, base(), size, writable));
    }

    @Override byte[] ctxOut() { return copiedBack ? NativeMemory.read(base(), size) : null; }
}
