package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleUnwinder;

import java.util.Arrays;
import java.util.List;

/**
 * bpf4j's unwind of each sample (the one {@code bpf_get_stackid} stores) against the kernel's own
 * user CALLCHAIN of the same sample, where the kernel recorded one: identical, the kernel's a strict
 * prefix of ours (it stopped early: a frame-pointer walk on a function's entry or {@code ret} loses the
 * caller, a bad rbp ends it), ours a strict prefix of the kernel's, or different. Used from one thread.
 */
public final class CallchainCheck {
    private final SampleUnwinder unwinder;
    private long compared, identical, kernelShorter, oursShorter, different;

    public CallchainCheck(Unwinder unwinder) { this.unwinder = new SampleUnwinder(unwinder); }

    public void accept(PerfRecord.Sample s) {
        long[] kernel = s.userCallchain();
        if (kernel.length == 0 || !s.hasRegs()) return;
        List<Long> o = unwinder.unwind(s).ips();
        long[] ours = o.stream().mapToLong(Long::longValue).toArray();
        compared++;
        if (Arrays.equals(ours, kernel)) identical++;
        else if (isPrefix(kernel, ours)) kernelShorter++;
        else if (isPrefix(ours, kernel)) oursShorter++;
        else different++;
    }

    private static boolean isPrefix(long[] a, long[] b) {
        return a.length < b.length && Arrays.equals(a, 0, a.length, b, 0, a.length);
    }

    public long compared() { return compared; }

    public long identical() { return identical; }

    public String describe() {
        if (compared == 0) return "kernel CALLCHAIN: none recorded";
        return String.format("kernel CALLCHAIN of the same samples: %d compared, identical to bpf4j's unwind %d (%.2f%%); kernel's shorter %d,"
                + " bpf4j's shorter %d, different %d", compared, identical, 100.0 * identical / compared, kernelShorter, oursShorter, different);
    }
}
