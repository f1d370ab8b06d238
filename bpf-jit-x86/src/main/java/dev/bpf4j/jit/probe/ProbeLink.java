package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.AccessDescriptor;
import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.jit.runtime.DirectRuns;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.runtime.ErrorKind;

import java.util.Optional;

/**
 * One program attached to one function: its hit, error and missed counters and its last error.
 * A program that fails inside a probe never disturbs the traced function: the run ends, the error
 * is counted and kept here, the function continues. {@link #close} detaches.
 */
public final class ProbeLink implements AutoCloseable {
    private final NativeProbe probe;
    private final ProbeProgram program;
    private final ProbeStats stats = new ProbeStats();
    private final long upcallId;
    /** The id the env template's OWNER word carries for the Java helpers of a direct program (0: none). */
    private final long ownerId;
    private final EnvTemplate env;
    private final Runnable unpin;
    private volatile Throwable lastJavaError;
    private volatile boolean detached;
    private final boolean atReturn;
    /** The function's return counters when this link was made: {@link #returnsMissed()} counts from there. */
    private final long missedAtAttach, lostAtAttach;

    ProbeLink(NativeProbe probe, ProbeProgram program, boolean atReturn) {
        this.probe = probe;
        this.program = program;
        this.atReturn = atReturn;
        this.missedAtAttach = NativeMemory.getLongVolatile(probe.exits() + ReturnTrampoline.MISSED);
        this.lostAtAttach = NativeMemory.getLongVolatile(probe.exits() + ReturnTrampoline.LOST);
        boolean javaHelpers = program.direct() && ((JitExecutable) program.executable()).callsJava();
        this.ownerId = javaHelpers ? DirectRuns.register(new JavaHelpers()) : 0;
        this.env = program.direct() ? new EnvTemplate(program.regions(), ownerId) : null;
        this.unpin = program.direct() ? ((JitExecutable) program.executable()).pin("probe on " + probe.name()) : () -> {};
        this.upcallId = program.direct() ? 0 : Upcall.register(this);
    }

    public ProbeProgram program() { return program; }

    /** Name of the traced function. */
    public String function() { return probe.name(); }

    /** Runs of the program on this function (each hit runs it once). */
    public long hits() { return stats.hits(); }

    /** Runs that ended with an error. */
    public long errors() { return stats.get(ProbeStats.ERRORS); }

    /**
     * Hits skipped because the thread was already running a probe program in Java: an upcall hit is
     * then not run (nor counted as a hit); a direct hit ends at its first Java helper call.
     */
    public long missed() { return stats.get(ProbeStats.MISSED); }

    /** The most recent failure, as the engine reported it (program, pc, reason). */
    public Optional<Throwable> lastError() {
        Throwable t = lastJavaError;
        if (!program.direct()) return Optional.ofNullable(t);
        if (stats.get(ProbeStats.ERRORS) == 0) return Optional.empty();
        // the trampoline keeps the last failed run's status: a helper's failure was kept by the bridge
        if (t != null && stats.get(ProbeStats.LAST_STATUS) == EnvLayout.STATUS_HELPER_ERROR) return Optional.of(t);
        return Optional.of(nativeError());
    }

    public boolean attached() { return !detached; }

    /** True for a return probe (the program runs as the function returns). */
    public boolean atReturn() { return atReturn; }

    /**
     * Returns of the function not probed since this link was made because the calling thread
     * already had {@value ReturnTrampoline#MAX_ACTIVE} return-probed calls pending (uretprobe's depth
     * limit, kretprobe's {@code maxactive}), counted for the function (every return link on it sees them).
     */
    public long returnsMissed() { return NativeMemory.getLongVolatile(probe.exits() + ReturnTrampoline.MISSED) - missedAtAttach; }

    /**
     * Swapped returns found never to have happened since this link was made — the frame was left by
     * longjmp, an exception or the thread's end — counted for the function when a later call or
     * return of the same thread passes over them.
     */
    public long returnsLost() { return NativeMemory.getLongVolatile(probe.exits() + ReturnTrampoline.LOST) - lostAtAttach; }

    /** Detaches (idempotent): once no program is left, the function's nop is back. */
    @Override public void close() {
        if (detached) return;
        detached = true;
        NativeProbes.detach(probe, this);
    }

    ProbeStats stats() { return stats; }

    TrampolineEmitter.Call call() {
        if (program.direct()) {
            JitExecutable x = (JitExecutable) program.executable();
            long[] words = env.words();
            return new TrampolineEmitter.JitCall(x.entryAddress(), words, ProbeEnvWords.stored(x.program(), x.compiled().proofs(), words.length),
                    stats.address(), !x.helperBindings().isEmpty());
        }
        return new TrampolineEmitter.UpcallCall(Upcall.address(), upcallId, stats.address() + ProbeStats.MISSED);
    }

    /** After detach: the program may be closed; the native blocks stay for trampolines that may still run. */
    void released() {
        unpin.run();
        Upcall.unregister(upcallId);
        // ownerId stays registered: a thread may still be in a retired trampoline, whose run must
        // complete as it began (the trampoline already counted its hit)
    }

    /** The upcall path: one run with r1 = the hit's pt_regs, which are also the run's registers. */
    void runInJava(long ptRegs) {
        stats.add(ProbeStats.HITS, 1);
        try {
            program.executable().run(context(ptRegs));
        } catch (Throwable t) {
            lastJavaError = t;
            stats.add(ProbeStats.ERRORS, 1);
        }
    }

    /** A hit's context, as the upcall path builds it: r1 = the pt_regs, also the run's registers and its first region. */
    private RunContext context(long ptRegs) {
        // registers: the stack helpers unwind from the probe site, over the live stack (the hit's frames are below us).
        RunContext.Builder ctx = RunContext.builder().arg(1, ptRegs).registers(PtRegs.read(ptRegs))
                .region(new MemoryRegion("pt_regs", ptRegs, PtRegsLayout.SIZE, false));
        for (MemoryRegion r : program.regions()) ctx.region(r);
        return ctx.build();
    }

    /** What the helper bridge needs for the Java helpers of a direct program (the trampoline counts the failed run). */
    private final class JavaHelpers implements DirectRuns.Owner {
        @Override public JitExecutable program() { return (JitExecutable) program.executable(); }

        @Override public RunContext context(long env) { return ProbeLink.this.context(NativeMemory.getLong(env + EnvLayout.REGIONS)); }

        @Override public void failed(Throwable failure) { lastJavaError = failure; }

        @Override public void missed() { stats.add(ProbeStats.MISSED, 1); }
    }

    private BpfRuntimeException nativeError() {
        String name = program.name();
        long status = stats.get(ProbeStats.LAST_STATUS), kind = stats.get(ProbeStats.LAST_KIND);
        long desc = stats.get(ProbeStats.LAST_DESC), addr = stats.get(ProbeStats.LAST_ADDR);
        if (status == EnvLayout.STATUS_NATIVE_ERROR && kind == EnvLayout.KIND_OUT_OF_BOUNDS) {
            return BpfRuntimeException.outOfBounds(name, AccessDescriptor.pc(desc), addr, AccessDescriptor.size(desc), AccessDescriptor.write(desc));
        }
        if (status == EnvLayout.STATUS_NATIVE_ERROR && kind == EnvLayout.KIND_MISALIGNED_ATOMIC) {
            return BpfRuntimeException.misalignedAtomic(name, AccessDescriptor.pc(desc), addr, AccessDescriptor.size(desc));
        }
        if (status == EnvLayout.STATUS_NATIVE_ERROR && kind == EnvLayout.KIND_BUDGET) return BpfRuntimeException.budgetExceeded(name, (int) desc, Limits.DEFAULT_BUDGET);
        if (status == EnvLayout.STATUS_NATIVE_ERROR && kind == EnvLayout.KIND_CALL_DEPTH) return BpfRuntimeException.callDepthExceeded(name, (int) desc, Limits.MAX_CALL_FRAMES);
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, name, 0, 0, "probe run ended with status " + status + "/" + kind);
    }
}
