package dev.bpf4j.unwind.sampling;

import java.util.Arrays;

/** The ring-buffer records the sampler acts on. */
public sealed interface PerfRecord {
    /**
     * PERF_RECORD_SAMPLE: where thread {@code tid} was ({@code ip}), the sample's period when asked for
     * (0 otherwise), its user registers indexed by perf register number ({@code PERF_REG_X86_*}; null
     * when the kernel had none, as for a sample taken in a kernel thread; registers not asked for are
     * 0), the copy of its user stack from {@code sp} up ({@code stack}: the dyn_size bytes actually
     * copied), when asked for, the kernel's callchain (PERF_CONTEXT_* markers included), and the CPU the
     * thread ran on ({@code cpu}: -1 when not asked for).
     */
    record Sample(int pid, int tid, long time, long ip, long period, long[] regs, byte[] stack, long[] callchain, int cpu)
            implements PerfRecord {
        /** A sample without its CPU. */
        public Sample(int pid, int tid, long time, long ip, long period, long[] regs, byte[] stack, long[] callchain) {
            this(pid, tid, time, ip, period, regs, stack, callchain, -1);
        }

        /** A sample with only the three registers a frame walk starts from. */
        public static Sample ofFrame(int pid, int tid, long time, long ip, long bp, long sp, long regIp, byte[] stack, long[] callchain) {
            long[] regs = new long[PerfAbi.PERF_REG_X86_64_MAX];
            regs[PerfAbi.PERF_REG_X86_BP] = bp;
            regs[PerfAbi.PERF_REG_X86_SP] = sp;
            regs[PerfAbi.PERF_REG_X86_IP] = regIp;
            return new Sample(pid, tid, time, ip, 0, regs, stack, callchain);
        }

        public boolean hasRegs() { return regs != null; }

        /** User register {@code perfReg} (PERF_REG_X86_*), 0 without registers. */
        public long reg(int perfReg) { return regs == null ? 0 : regs[perfReg]; }

        public long bp() { return reg(PerfAbi.PERF_REG_X86_BP); }

        public long sp() { return reg(PerfAbi.PERF_REG_X86_SP); }

        /** The ip of the user registers (equal to {@link #ip()} for a user-space sample). */
        public long regIp() { return reg(PerfAbi.PERF_REG_X86_IP); }

        /** The user part of the kernel's callchain: the ips after PERF_CONTEXT_USER, innermost first. */
        public long[] userCallchain() {
            int i = 0;
            while (i < callchain.length && callchain[i] != PerfAbi.PERF_CONTEXT_USER) i++;
            if (i == callchain.length) return Arrays.stream(callchain).filter(ip -> Long.compareUnsigned(ip, PerfAbi.PERF_CONTEXT_MAX) < 0).toArray();
            int end = i + 1;
            while (end < callchain.length && Long.compareUnsigned(callchain[end], PerfAbi.PERF_CONTEXT_MAX) < 0) end++;
            return Arrays.copyOfRange(callchain, i + 1, end);
        }
    }

    /** PERF_RECORD_LOST: {@code lost} samples dropped because the ring was full. */
    record Lost(long id, long lost) implements PerfRecord {}

    /**
     * PERF_RECORD_COMM: thread {@code tid} of process {@code pid} is named {@code comm} (at most 15
     * bytes, no NUL) from {@code time} on, after a rename ({@code prctl(PR_SET_NAME)}) or an exec.
     */
    record Comm(int pid, int tid, long time, byte[] comm, boolean exec) implements PerfRecord {}

    /**
     * PERF_RECORD_FORK (attr.task): thread {@code ptid} of process {@code ppid} created thread
     * {@code tid} of process {@code pid} (the same process for a new thread, another one for fork(2)).
     */
    record Fork(int pid, int ppid, int tid, int ptid, long time) implements PerfRecord {}

    /** Any other record type (throttle, unthrottle, ...), kept only to be counted. */
    record Other(int type) implements PerfRecord {}
}
