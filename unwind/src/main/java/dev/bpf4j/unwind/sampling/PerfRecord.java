package dev.bpf4j.unwind.sampling;

import java.util.Arrays;

/** The ring-buffer records the sampler acts on. */
public sealed interface PerfRecord {
    /**
     * PERF_RECORD_SAMPLE: where thread {@code tid} was ({@code ip}), its user registers when the kernel
     * had them ({@code hasRegs}; none for a sample taken in a kernel thread), the copy of its user stack
     * from {@code sp} up ({@code stack}: the dyn_size bytes actually copied) and, when asked for, the
     * kernel's callchain (PERF_CONTEXT_* markers included).
     */
    record Sample(int pid, int tid, long time, long ip, boolean hasRegs, long bp, long sp, long regIp,
                  byte[] stack, long[] callchain) implements PerfRecord {
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

    /** Any other record type (throttle, unthrottle, ...), kept only to be counted. */
    record Other(int type) implements PerfRecord {}
}
