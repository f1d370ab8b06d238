package dev.bpf4j.stack;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.MemoryView;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Unwinder;

import java.util.List;
import java.util.Optional;

/**
 * Where the stack helpers get a run's trace — the equivalent of the kernel's
 * {@code get_perf_callchain(regs, kernel, user, max_depth)}. Everything bpf4j runs is user space,
 * so (see docs/stack-traces.md):
 * <ul>
 *   <li>with {@link RunContext#registers()} (a probe site, a sample, explicit registers) both the
 *       kernel and the user stack are the unwind from (ip, sp, bp) — over the
 *       {@link RunContext#stackSnapshot()} when given, else over the calling thread's live stack, with
 *       {@link RunContext#unwinder()} when the registers are another process's;</li>
 *   <li>without registers the user stack is the Java caller's stack ({@link JavaCallerStack}) and
 *       the kernel stack is empty, as for a uprobe in Linux.</li>
 * </ul>
 * The trace never depends on the engine: it starts below the run.
 */
public final class StackSource {
    private static final StackSource GLOBAL = new StackSource(Unwinder.global(), JavaCallerStack.global());

    private final Unwinder unwinder;
    private final JavaCallerStack java;

    public StackSource(Unwinder unwinder, JavaCallerStack java) {
        this.unwinder = unwinder;
        this.java = java;
    }

    public static StackSource global() { return GLOBAL; }

    /** At most {@code maxDepth} ips, innermost first; empty when the requested stack does not exist. */
    public long[] trace(HelperCall call, boolean user, int maxDepth) {
        RunContext ctx = call.runContext();
        Optional<PtRegs> regs = ctx == null ? Optional.empty() : ctx.registers();
        if (regs.isPresent()) {
            return truncate(unwind(ctx.unwinder().orElse(unwinder), regs.get(), ctx.stackSnapshot().orElse(null)).ips(), maxDepth);
        }
        return user ? java.capture(maxDepth) : new long[0];
    }

    /** True when {@link #trace} unwinds the calling thread's live stack with this source's unwinder (registers, no snapshot, no other unwinder). */
    public boolean liveUnwind(HelperCall call) {
        RunContext ctx = call.runContext();
        return ctx != null && ctx.registers().isPresent() && ctx.stackSnapshot().isEmpty() && ctx.unwinder().isEmpty();
    }

    /** The unwind from {@code regs}: over {@code snapshot}, or the calling thread's live stack when null. */
    public StackTrace unwind(PtRegs regs, MemoryView snapshot) { return unwind(unwinder, regs, snapshot); }

    private static StackTrace unwind(Unwinder u, PtRegs regs, MemoryView snapshot) {
        return snapshot != null ? u.unwind(regs.ip(), regs.sp(), regs.bp(), snapshot)
                : u.unwindCurrentThread(regs.ip(), regs.sp(), regs.bp());
    }

    private static long[] truncate(List<Long> ips, int maxDepth) {
        long[] out = new long[Math.min(ips.size(), maxDepth)];
        for (int i = 0; i < out.length; i++) out[i] = ips.get(i);
        return out;
    }
}
