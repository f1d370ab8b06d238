package dev.bpf4j.api;

import java.util.Objects;
import java.util.Optional;

/**
 * One {@code BPF_PROG_TEST_RUN}-style invocation of a loaded program.
 *
 * @param dataIn      the packet (xdp, tc, socket filter), else null
 * @param dataSizeOut the most bytes of {@link RunResult#dataOut()} to return, 0 for all (as the kernel's
 *                    {@code data_size_out}, except that a short buffer truncates instead of {@code ENOSPC})
 * @param ctxIn       the context bytes the caller supplies (a prefix of the UAPI struct, or the whole
 *                    user context of a syscall program, or the u64 arguments of a raw tracepoint), else null
 * @param repeat      how many times to run (at least 1); each run sees the previous run's packet, context
 *                    and maps, and the result carries the average duration, as in the kernel
 * @param engine      the engine to run on instead of the object's, by name ("interp", "jit"), else null
 */
public record RunOptions(byte[] dataIn, int dataSizeOut, byte[] ctxIn, int repeat, String engine) {
    public RunOptions {
        if (dataSizeOut < 0) throw new IllegalArgumentException("dataSizeOut must be >= 0");
        if (repeat < 1) throw new IllegalArgumentException("repeat must be >= 1, not " + repeat);
        dataIn = dataIn == null ? null : dataIn.clone();
        ctxIn = ctxIn == null ? null : ctxIn.clone();
    }

    /** No packet, no context, one run on the object's engine. */
    public static RunOptions defaults() { return new RunOptions(null, 0, null, 1, null); }

    public static RunOptions packet(byte[] data) { return defaults().withDataIn(data); }

    @Override public byte[] dataIn() { return dataIn == null ? null : dataIn.clone(); }
    @Override public byte[] ctxIn() { return ctxIn == null ? null : ctxIn.clone(); }

    public Optional<String> engineOverride() { return Optional.ofNullable(engine); }

    public RunOptions withDataIn(byte[] v) { return new RunOptions(v, dataSizeOut, ctxIn, repeat, engine); }
    public RunOptions withDataSizeOut(int v) { return new RunOptions(dataIn, v, ctxIn, repeat, engine); }
    public RunOptions withCtxIn(byte[] v) { return new RunOptions(dataIn, dataSizeOut, v, repeat, engine); }
    public RunOptions withRepeat(int v) { return new RunOptions(dataIn, dataSizeOut, ctxIn, v, engine); }
    public RunOptions withEngine(String v) { return new RunOptions(dataIn, dataSizeOut, ctxIn, repeat, Objects.requireNonNull(v)); }
}
