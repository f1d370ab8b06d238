package dev.bpf4j.jit.runtime;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.RunContext;

/**
 * The {@link HelperCall} helpers of one JIT run receive. {@link JitRun}s are reused run after run,
 * so this small view carries the run's generation: used after its run ended, every call fails
 * instead of reaching into a later run.
 */
final class RunHelperCall implements HelperCall {
    private final JitRun run;
    private final int generation;
    private final String programName;

    RunHelperCall(JitRun run, int generation, String programName) {
        this.run = run;
        this.generation = generation;
        this.programName = programName;
    }

    private JitRun live() {
        run.checkGeneration(generation, programName);
        return run;
    }

    /** The running program's name (a tail call changes it); after the run, the name it started with. */
    @Override public String programName() {
        try {
            return live().programName();
        } catch (IllegalStateException ended) {
            return programName;
        }
    }

    @Override public int pc() { return live().pc(); }

    @Override public RunContext runContext() { return live().runContext(); }

    @Override public void exit(long r0) { live().exit(r0); }

    @Override public void replaceRegion(dev.bpf4j.runtime.MemoryRegion old, dev.bpf4j.runtime.MemoryRegion now) {
        live().replaceRegion(old, now);
    }

    @Override public boolean accessible(long address, long size, boolean write) { return live().accessible(address, size, write); }

    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return live().accessible(argReg, address, size, write);
    }

    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        return live().callSubprogram(handle, r1, r2, r3, r4, r5);
    }

    @Override public long scratch(int size) { return live().scratch(size); }

    @Override public boolean tailCall(Object target) { return live().tailCall(target); }
}
