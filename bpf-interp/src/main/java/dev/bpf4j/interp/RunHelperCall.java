package dev.bpf4j.interp;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.RunContext;

/**
 * The {@link HelperCall} the helpers of one interpreter run receive. Machines are reused run after
 * run, so a helper that keeps its call must not reach into a later run: this view carries the
 * generation of its machine's run and is live only while that run is in progress, as the JIT's
 * {@code RunHelperCall}.
 */
final class RunHelperCall implements HelperCall {
    private final Machine machine;
    private final int generation;
    /** The loaded program's name: what {@link #programName} answers once the run has ended. */
    private final String loadedName;

    RunHelperCall(Machine machine, int generation, String loadedName) {
        this.machine = machine;
        this.generation = generation;
        this.loadedName = loadedName;
    }

    private Machine live() {
        if (!machine.isCurrentRun(generation)) {
            throw new IllegalStateException("the run of '" + loadedName + "' this HelperCall belonged to has ended");
        }
        return machine;
    }

    /** The running program's name (a tail call changes it); after the run, the loaded program's, as the JIT. */
    @Override public String programName() { return machine.isCurrentRun(generation) ? machine.programName() : loadedName; }

    @Override public int pc() { return live().pc(); }

    @Override public RunContext runContext() { return live().runContext(); }

    @Override public boolean accessible(long address, long size, boolean write) { return live().accessible(address, size, write); }

    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return live().accessible(argReg, address, size, write);
    }

    @Override public void exit(long r0) { live().exit(r0); }

    @Override public void replaceRegion(dev.bpf4j.runtime.MemoryRegion old, dev.bpf4j.runtime.MemoryRegion now) {
        live().replaceRegion(old, now);
    }

    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        return live().callSubprogram(handle, r1, r2, r3, r4, r5);
    }

    @Override public boolean tailCall(Object target) { return live().tailCall(target); }

    @Override public long scratch(int size) { return live().scratch(size); }
}
