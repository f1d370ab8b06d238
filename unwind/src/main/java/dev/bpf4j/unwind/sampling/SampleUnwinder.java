package dev.bpf4j.unwind.sampling;

import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Unwinder;

import java.util.List;

/**
 * Turns a sample into a stack trace with bpf4j's own unwinder: from the sampled (ip, sp, bp) over
 * the copy of the user stack that starts at sp (unwind rows where the code map knows the code,
 * frame pointers elsewhere). A sample without user registers gives its ip alone.
 */
public final class SampleUnwinder {
    private final Unwinder unwinder;

    public SampleUnwinder(Unwinder unwinder) { this.unwinder = unwinder; }

    public StackTrace unwind(PerfRecord.Sample s) {
        if (!s.hasRegs()) return new StackTrace(s.ip() == 0 ? List.of() : List.of(s.ip()), false);
        return unwinder.unwind(s.regIp(), s.sp(), s.bp(), SnapshotMemoryView.over(s.sp(), s.stack()));
    }
}
