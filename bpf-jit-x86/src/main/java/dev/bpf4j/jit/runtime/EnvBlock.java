package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.lang.ref.Cleaner;
import java.util.List;

/**
 * The off-heap environment block of one run (layout: {@link EnvLayout}). Blocks are pooled per
 * thread ({@link ThreadRuns}); a helper that starts another run on the same thread simply takes a
 * second block. The native memory of blocks still pooled when their thread dies is freed by a cleaner.
 */
final class EnvBlock {
    private static final Cleaner CLEANER = Cleaner.create();

    private final long address;
    /** The helper scratch buffers (EnvLayout.SCRATCH_BASE), allocated with the block. */
    private final long scratch;
    private final int capacity;
    private final Cleaner.Cleanable cleanable;
    /** The run bookkeeping that goes with this block, reused by each run that takes it. */
    private final JitRun run = new JitRun(this);
    /** The region list whose table (and fast-path cache) the block holds. */
    private List<MemoryRegion> boundRegions;

    private EnvBlock(int capacity) {
        this.capacity = capacity;
        this.address = NativeMemory.allocate(EnvLayout.sizeFor(capacity));
        this.scratch = NativeMemory.allocate((long) Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES);
        this.cleanable = CLEANER.register(this, new Free(address, scratch));
        set(EnvLayout.SCRATCH_BASE, scratch);
        set(EnvLayout.OWNER, 0);   // a Java run: the bridge finds it through its thread
    }

    /** A view of a block native code built (see {@link DirectRuns}): it owns no memory. */
    private EnvBlock(long address) {
        this.capacity = 0;
        this.address = address;
        this.scratch = 0;
        this.cleanable = null;
    }

    static EnvBlock view(long address) { return new EnvBlock(address); }

    /** Frees the block's memory; holds no reference to the block itself. */
    private static final class Free implements Runnable {
        private final long address, scratch;

        Free(long address, long scratch) {
            this.address = address;
            this.scratch = scratch;
        }

        @Override public void run() {
            NativeMemory.free(address);
            NativeMemory.free(scratch);
        }
    }

    static EnvBlock allocate(int regions) { return new EnvBlock(Math.max(regions, 8)); }

    int capacity() { return capacity; }

    void free() { if (cleanable != null) cleanable.clean(); }

    long address() { return address; }

    JitRun run() { return run; }

    long get(int field) { return NativeMemory.getLong(address + field); }

    void set(int field, long value) { NativeMemory.putLong(address + field, value); }

    /**
     * Fills the block for a new run of {@code ctx}. The error words are only read once the status
     * says so, and the native code sets the frame words itself; the region table is rewritten only
     * when the run's (immutable) region list differs from the one the block already holds.
     */
    void prepare(RunContext ctx) {
        set(EnvLayout.STATUS, 0);
        set(EnvLayout.BUDGET, ctx.budget());
        set(EnvLayout.DEPTH, 1);
        for (int i = 0; i < 5; i++) set(EnvLayout.ARGS + 8 * i, ctx.arg(i));
        set(EnvLayout.PKT_ADDR, ctx.packetAddress());
        set(EnvLayout.PKT_LEN, ctx.packetLength());
        set(EnvLayout.SCRATCH_LIVE, 0);
        List<MemoryRegion> regions = ctx.regions();
        if (regions == boundRegions) return;
        boundRegions = regions;
        set(EnvLayout.REGION_COUNT, regions.size());
        MemoryRegion fastRead = null, fastWrite = null;
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            long base = address + EnvLayout.REGIONS + (long) i * EnvLayout.REGION_SIZE;
            NativeMemory.putLong(base, r.start());
            NativeMemory.putLong(base + EnvLayout.REGION_END, r.end());
            NativeMemory.putLong(base + EnvLayout.REGION_WRITABLE, r.writable() ? 1 : 0);
            if (cacheable(r)) {
                if (fastRead == null) fastRead = r;
                if (fastWrite == null && r.writable()) fastWrite = r;
            }
        }
        setFast(EnvLayout.FAST_R_START, EnvLayout.FAST_R_LAST, fastRead);
        setFast(EnvLayout.FAST_W_START, EnvLayout.FAST_W_LAST, fastWrite);
    }

    /** The fast path checks {@code start <= addr <= end - 8}: only regions of 8+ bytes that do not wrap. */
    private static boolean cacheable(MemoryRegion r) {
        return r.length() >= 8 && Long.compareUnsigned(r.end(), r.start()) > 0;
    }

    private void setFast(int startField, int lastField, MemoryRegion r) {
        if (r == null) {
            set(startField, -1L);   // no address is >= 0xffff... and <= 0
            set(lastField, 0);
        } else {
            set(startField, r.start());
            set(lastField, r.end() - 8);
        }
    }
}
