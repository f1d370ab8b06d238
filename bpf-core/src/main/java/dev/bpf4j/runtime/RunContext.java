package dev.bpf4j.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * One invocation's inputs: the initial r1-r5, the memory regions the program may touch besides its
 * stack, and the budget of taken back-edges plus calls. Engines do not modify it.
 */
public final class RunContext {
    private final long[] args;
    private final List<MemoryRegion> regions;
    private final long budget;

    private RunContext(long[] args, List<MemoryRegion> regions, long budget) {
        this.args = args;
        this.regions = List.copyOf(regions);
        this.budget = budget;
    }

    public static Builder builder() { return new Builder(); }

    /** Initial value of register r{@code 1 + i}, i in 0..4. */
    public long arg(int i) { return args[i]; }

    public List<MemoryRegion> regions() { return regions; }

    public long budget() { return budget; }

    public static final class Builder {
        private final long[] args = new long[5];
        private final List<MemoryRegion> regions = new ArrayList<>();
        private long budget = Limits.DEFAULT_BUDGET;

        /** Sets r{@code reg} (1-5) at entry. */
        public Builder arg(int reg, long value) {
            if (reg < 1 || reg > 5) throw new IllegalArgumentException("entry argument registers are r1-r5, not r" + reg);
            args[reg - 1] = value;
            return this;
        }

        public Builder region(MemoryRegion r) { regions.add(r); return this; }

        public Builder budget(long budget) {
            if (budget < 0) throw new IllegalArgumentException("negative budget");
            this.budget = budget;
            return this;
        }

        public RunContext build() { return new RunContext(args.clone(), regions, budget); }
    }
}
