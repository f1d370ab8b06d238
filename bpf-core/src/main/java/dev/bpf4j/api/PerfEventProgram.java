package dev.bpf4j.api;

import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.Unwinder;

/**
 * A loaded {@code BPF_PROG_TYPE_PERF_EVENT} program run once per sample, as the kernel runs one
 * attached to a perf event ({@code bpf_overflow_handler}): r1 = a read-only
 * {@code struct bpf_perf_event_data}, and {@code bpf_get_stackid}/{@code bpf_get_stack} unwind the
 * <em>sample's</em> registers over its stack copy — never the stack of the thread that runs the
 * program — so the same samples give the same stack ids and maps on every engine. The helpers about
 * the current task describe the sampled thread ({@link PerfEventSample#task()}), as in Linux, where the
 * program runs on that thread.
 *
 * <p>One context block is reused for every run: call {@link #run} from one thread at a time.
 */
public final class PerfEventProgram implements AutoCloseable {
    private final BpfObject object;
    private final BpfProgram program;
    private final Executable executable;
    private final Unwinder unwinder;
    private final long ctx;
    private final MemoryRegion ctxRegion;
    private long runs, errors;
    private BpfRuntimeException lastError;
    private boolean closed;

    /**
     * @param unwinder how sample registers are unwound: null for this process's code, else the
     *                 sampled process's ({@code new Unwinder(ProcessCode.ofProcess(pid, ...))})
     */
    public PerfEventProgram(BpfObject object, String name, Unwinder unwinder) {
        this.object = object;
        this.program = object.program(name);
        if (program.type() != ProgramType.PERF_EVENT) {
            throw new IllegalArgumentException("program '" + name + "' is " + program.type()
                    + ": samples run perf_event programs (SEC(\"perf_event\"), ctx = struct bpf_perf_event_data *)");
        }
        this.executable = program.defaultExecutable();
        this.unwinder = unwinder;
        this.ctx = NativeMemory.allocate(PerfEventSample.SIZE);
        this.ctxRegion = new MemoryRegion("bpf_perf_event_data", ctx, PerfEventSample.SIZE, false);
    }

    public BpfProgram program() { return program; }

    public BpfObject object() { return object; }

    /**
     * Runs the program on one sample and returns r0. A run the engine stops (a failed check, the
     * budget) is counted in {@link #errors()}, kept as {@link #lastError()} and returns empty, as
     * the kernel simply ends the program.
     */
    public java.util.OptionalLong run(PerfEventSample sample) {
        if (closed) throw new IllegalStateException("perf_event program '" + program.name() + "' is closed");
        sample.write(ctx);
        RunContext.Builder b = RunContext.builder().arg(1, ctx).region(ctxRegion)
                .registers(sample.regs()).stackSnapshot(new SnapshotMemoryView(sample.regs().sp(), sample.stack()))
                .unwinder(unwinder).task(sample.task()).budget(program.budget());
        for (MemoryRegion r : object.mapTable().regions()) b.region(r);
        runs++;
        try {
            return java.util.OptionalLong.of(executable.run(b.build()));
        } catch (BpfRuntimeException e) {
            errors++;
            lastError = e;
            return java.util.OptionalLong.empty();
        }
    }

    public long runs() { return runs; }

    /** Runs that ended in a runtime error. */
    public long errors() { return errors; }

    public java.util.Optional<BpfRuntimeException> lastError() { return java.util.Optional.ofNullable(lastError); }

    @Override public void close() {
        if (closed) return;
        closed = true;
        NativeMemory.free(ctx);
    }
}
