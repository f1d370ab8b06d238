package dev.bpf4j.kernel.object;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.TestRunRequest;
import dev.bpf4j.kernel.TestRunResult;
import dev.bpf4j.object.ProgramType;

import java.util.Arrays;

/**
 * {@link RunOptions} onto BPF_PROG_TEST_RUN, giving the {@link RunResult} bpf4j's object layer gives
 * for the same program type: packet programs return data_out (and the {@code __sk_buff} for skb
 * programs), a syscall program its user context, other programs only the retval.
 */
final class KernelTestRun {
    private KernelTestRun() {}

    /** sizeof(struct __sk_buff): what skb programs get back as ctx_out. */
    static final int SKB_SIZE = 192;
    /** Headroom for data_out over data_in (bpf_xdp_adjust_tail and friends may grow the packet). */
    static final int DATA_OUT_SLACK = 256;
    /** Room for a packet bpf_xdp_adjust_tail grew to its limit (a 4096-byte frame less headroom and tailroom). */
    static final int XDP_FRAME = 4096;
    /** Room for an skb that bpf_skb_change_head/_tail or bpf_skb_adjust_room grew to BPF_SKB_MAX_LEN (16 KiB less the shared info). */
    static final int SKB_MAX_LEN = 16384;

    /** Whether the kernel has a BPF_PROG_TEST_RUN for this type that bpf4j drives (kprobe and perf_event have none). */
    static boolean runnable(ProgramType t) { return t.kernelTestRun() != ProgramType.KernelTestRun.NONE; }

    static RunResult run(int fd, ProgramType type, RunOptions o) {
        if (o.dataIn() == null) {
            // raw_tp and syscall programs refuse repeat: run them repeat times, each seeing the last one's maps
            TestRunResult r = null;
            long total = 0;
            byte[] ctx = o.ctxIn();
            for (int i = 0; i < o.repeat(); i++) {
                r = BpfSyscall.progTestRun(fd, TestRunRequest.ofContext(ctx));
                total += r.duration();
                if (type.context().writtenBack() && ctx != null) ctx = r.ctxIn();
            }
            boolean back = type.context().writtenBack() && ctx != null && ctx.length > 0;
            return new RunResult(r.retvalUnsigned(), null, back ? r.ctxIn() : null, total / o.repeat());
        }
        byte[] data = o.dataIn();
        boolean skb = type.kernelTestRun() == ProgramType.KernelTestRun.SKB;
        TestRunResult r = BpfSyscall.progTestRun(fd, new TestRunRequest(data, Math.max(data.length, skb ? SKB_MAX_LEN : XDP_FRAME) + DATA_OUT_SLACK, o.ctxIn(),
                skb ? SKB_SIZE : 0, o.repeat()));
        byte[] out = r.dataOut();
        if (o.dataSizeOut() > 0 && out.length > o.dataSizeOut()) out = Arrays.copyOf(out, o.dataSizeOut());
        return new RunResult(r.retvalUnsigned(), out, skb ? r.ctxOut() : null, r.duration());
    }
}
