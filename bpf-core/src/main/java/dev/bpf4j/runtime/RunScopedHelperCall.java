package dev.bpf4j.runtime;

/**
 * The {@link HelperCall} the helpers of one run receive, for every engine. Engines reuse their run
 * state run after run, so a helper that keeps its call must not reach into a later run: this view
 * carries the generation of its run and is live only while that run is in progress.
 */
public final class RunScopedHelperCall implements HelperCall {
    /** An engine's run state: the HelperCall of the run in progress, which knows its generation. */
    public interface Run extends HelperCall {
        boolean isCurrentRun(int generation);
    }

    private final Run run;
    private final int generation;
    /** What {@link #programName} answers once the run has ended. */
    private final String nameAfterRun;

    public RunScopedHelperCall(Run run, int generation, String nameAfterRun) {
        this.run = run;
        this.generation = generation;
        this.nameAfterRun = nameAfterRun;
    }

    private Run live() {
        if (!run.isCurrentRun(generation)) {
            throw new IllegalStateException("the run of '" + nameAfterRun + "' this HelperCall belonged to has ended");
        }
        return run;
    }

    /** The running program's name (a tail call changes it); after the run, {@code nameAfterRun}. */
    @Override public String programName() { return run.isCurrentRun(generation) ? run.programName() : nameAfterRun; }

    @Override public int pc() { return live().pc(); }

    @Override public RunContext runContext() { return live().runContext(); }

    @Override public boolean accessible(long address, long size, boolean write) { return live().accessible(address, size, write); }

    @Override public boolean accessible(int argReg, long address, long size, boolean write) {
        return live().accessible(argReg, address, size, write);
    }

    @Override public void exit(long r0) { live().exit(r0); }

    @Override public void replaceRegion(MemoryRegion old, MemoryRegion now) { live().replaceRegion(old, now); }

    @Override public void packetDataMoved(long data, long length) { live().packetDataMoved(data, length); }

    @Override public long callSubprogram(long handle, long r1, long r2, long r3, long r4, long r5) {
        return live().callSubprogram(handle, r1, r2, r3, r4, r5);
    }

    @Override public boolean tailCall(Object target) { return live().tailCall(target); }

    @Override public long scratch(int size) { return live().scratch(size); }
}
