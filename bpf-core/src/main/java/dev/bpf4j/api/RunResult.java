package dev.bpf4j.api;

import java.util.HexFormat;

/**
 * What a run returned, shaped like {@code BPF_PROG_TEST_RUN}'s output.
 *
 * @param retval            r0 truncated to 32 bits, as the kernel's {@code retval} ({@code __u32})
 * @param dataOut           the packet after the program (xdp, tc, socket filter), else null
 * @param ctxOut            the context after the program where the kernel copies it back
 *                          ({@code __sk_buff} of tc/socket programs, a syscall program's user context), else null
 * @param averageDurationNs wall time of one run, averaged over {@link RunOptions#repeat()} runs
 */
public record RunResult(long retval, byte[] dataOut, byte[] ctxOut, long averageDurationNs) {
    public RunResult {
        dataOut = dataOut == null ? null : dataOut.clone();
        ctxOut = ctxOut == null ? null : ctxOut.clone();
    }

    @Override public byte[] dataOut() { return dataOut == null ? null : dataOut.clone(); }
    @Override public byte[] ctxOut() { return ctxOut == null ? null : ctxOut.clone(); }

    @Override public String toString() {
        HexFormat hex = HexFormat.of();
        return "RunResult{retval=" + retval + (dataOut == null ? "" : ", data_out=" + hex.formatHex(dataOut))
                + (ctxOut == null ? "" : ", ctx_out=" + hex.formatHex(ctxOut)) + ", avg=" + averageDurationNs + "ns}";
    }
}
