package dev.bpf4j.api;

import dev.bpf4j.object.ProgramType;

/**
 * The context a program type gets in a test run ({@link ProgramType#context()}), with the layouts of include/uapi/linux/bpf.h and
 * arch/x86/include/uapi/asm/ptrace.h (x86-64).
 */
final class ProgramContexts {
    private ProgramContexts() {}

    /** {@code struct pt_regs} on x86-64: r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss. */
    static final int PT_REGS_SIZE = 21 * 8;
    /** {@code struct bpf_perf_event_data}: pt_regs, u64 sample_period, u64 addr. */
    static final int PERF_EVENT_DATA_SIZE = PT_REGS_SIZE + 16;

    static RunFrame frame(String program, ProgramType type, RunOptions o) {
        byte[] data = o.dataIn();
        byte[] ctx = o.ctxIn();
        switch (type.context()) {
            case XDP_MD:
                return new XdpFrame(program, data, ctx);
            case SK_BUFF_L2:
                return new SkbFrame(program, data, ctx, true);
            case SK_BUFF:
                return new SkbFrame(program, data, ctx, false);
            case PT_REGS:
                noData(program, type, data);
                return BlobFrame.struct(program, "pt_regs", PT_REGS_SIZE, ctx);
            case PERF_EVENT_DATA:
                noData(program, type, data);
                return BlobFrame.struct(program, "bpf_perf_event_data", PERF_EVENT_DATA_SIZE, ctx);
            case RAW_ARGS:
                noData(program, type, data);
                return BlobFrame.args(program, ctx);
            case SYSCALL_USER:
                noData(program, type, data);
                return BlobFrame.user(program, ctx);
            default:
                throw new IllegalArgumentException(program + ": bpf4j cannot test-run " + type + " programs (supported: xdp, tc,"
                        + " socket filter, cgroup_skb, lwt, kprobe, perf_event, raw_tp, tracing, syscall)");
        }
    }

    private static void noData(String program, ProgramType type, byte[] data) {
        if (data != null) throw new IllegalArgumentException(program + ": " + type + " programs take no data_in (EINVAL in the kernel)");
    }
}
