package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.AccessDescriptor;
import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.runtime.RunContext;

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
    private final EnvTemplate env;
    private final Runnable unpin;
    private volatile Throwable lastJavaError;
    private volatile boolean detached;

    ProbeLink(NativeProbe probe, ProbeProgram program) {
        this.probe = probe;
        this.program = program;
        this.env = program.direct() ? new EnvTemplate(program.regions()) : null;
        this.unpin = program.direct() ? ((JitExecutable) program.executable()).pin("probe on " + probe.name()) : () -> {};
        this.upcallId = program.direct() ? 0 : Upcall.register(this);
    }

    public ProbeProgram program() { return program; }

    /** Name of the traced function. */
    public String function() { return probe.name(); }

    /** Runs of the program on this function (each hit runs it once). */
    public long hits() { return stats.get(ProbeStats.HITS); }

    /** Runs that ended with an error. */
    public long errors() { return stats.get(ProbeStats.ERRORS); }

    /** Hits skipped because the thread was already running a probe program in Java. */
    public long missed() { return stats.get(ProbeStats.MISSED); }

    /** The most recent failure, as the engine reported it (program, pc, reason). */
    public Optional<Throwable> lastError() {
        Throwable t = lastJavaError;
        if (t != null) return Optional.of(t);
        if (stats.get(ProbeStats.ERRORS) == 0 || !program.direct()) return Optional.empty();
        return Optional.of(nativeError());
    }

    public boolean attached() { return !detached; }

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
            return new TrampolineEmitter.JitCall(x.entryAddress(), env.words(), stats.address(), !x.helperBindings().isEmpty());
        }
        return new TrampolineEmitter.UpcallCall(Upcall.address(), upcallId);
    }

    /** After detach: the program may be closed; the native blocks stay for trampolines that may still run. */
    void released() {
        unpin.run();
        Upcall.unregister(upcallId);
    }

    /** The upcall path: one run with r1 = the hit's pt_regs, which are also the run's registers. */
    void runInJava(long ptRegs) {
        stats.add(ProbeStats.HITS, 1);
        try {
            // registers: the stack helpers unwind from the probe site, over the live stack (the hit's frames are below us).
            RunContext.Builder ctx = RunContext.builder().arg(1, ptRegs).registers(PtRegs.read(ptRegs))
                    .region(new MemoryRegion("pt_regs", ptRegs, PtRegsLayout.SIZE, false));
            for (MemoryRegion r : program.regions()) ctx.region(r);
            program.executable().run(ctx.build());
        } catch (Throwable t) {
            lastJavaError = t;
            stats.add(ProbeStats.ERRORS, 1);
        }
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
        return new BpfRuntimeException(dev.bpf4j.runtime.ErrorKind.HELPER_FAILED, name, 0, 0, "probe run ended with status " + status + "/" + kind);
    }
}
