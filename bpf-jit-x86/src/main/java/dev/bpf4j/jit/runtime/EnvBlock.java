package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.LegacyPacketOffsets;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;

import java.lang.ref.Cleaner;
import java.util.List;

/**
 * The off-heap environment block of one run (layout: {@link EnvLayout}). Each thread keeps one per
 * nesting level ({@link ThreadRuns}): a helper that starts another run on the same thread uses the
 * next level's. The native memory of a dead thread's blocks is freed by a cleaner.
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
        resetAfterRun();
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

    /** {@link #entryWords} bit: the run's packet (LD ABS/IND read it). Below it: how many arguments the entry reads. */
    private static final int PACKET = 8;

    /**
     * What {@link #prepare} writes besides the budget for a program compiled with {@code entryArgs}
     * and {@code legacyPacketLoads}: the arguments r2.. its prologue loads (r1 is the call's own
     * argument) and the packet only when the program may read it.
     */
    static int entryWords(int entryArgs, boolean legacyPacketLoads) {
        return Math.max(1, Math.min(entryArgs, 5)) | (legacyPacketLoads ? PACKET : 0);
    }

    static boolean readsPacket(int words) { return (words & PACKET) != 0; }

    /** The packet words of {@code ctx} (prepare writes them only for programs that read them). */
    void setPacket(RunContext ctx) { setPacket(ctx.packetAddress(), ctx.packetLength(), ctx.packetBuffer()); }

    /** The packet words LD ABS/IND read: the packet and, from {@code buffer} (null: none), its headers. */
    void setPacket(long address, long length, PacketBuffer buffer) {
        update(EnvLayout.PKT_ADDR, address);
        update(EnvLayout.PKT_LEN, length);
        update(EnvLayout.PKT_NET_OFF, LegacyPacketOffsets.networkOffset(buffer, address));
        update(EnvLayout.PKT_MAC_OFF, LegacyPacketOffsets.macOffset(buffer, address));
    }

    /** The regions the table holds now. */
    List<MemoryRegion> boundRegions() { return boundRegions; }

    /** True when the block's region table already holds {@code regions} (the same list, or equal regions). */
    boolean bound(List<MemoryRegion> regions) { return MemoryRegion.sameRegions(regions, boundRegions); }

    /**
     * Fills the block for a new run of {@code ctx} ({@code words}: {@link #entryWords}; the region
     * table is bound by {@link ThreadRuns#block}). Only the budget and the words the program reads
     * are written: STATUS, DEPTH and SCRATCH_LIVE are back at 0, 1 and 0 after every run (a run that
     * ends with a non-zero status passes through {@link #resetAfterRun}), the error words are only
     * read once the status says so, and the native code sets the frame words itself.
     */
    void prepare(RunContext ctx, int words) {
        update(EnvLayout.BUDGET, ctx.budget());
        if (words == 2) { // the data-buffer convention (r1, r2): no loop
            update(EnvLayout.ARGS + 8, ctx.arg(1));
            return;
        }
        int args = words & (PACKET - 1);
        for (int i = 1; i < args; i++) update(EnvLayout.ARGS + 8 * i, ctx.arg(i));
        if ((words & PACKET) != 0) setPacket(ctx);
    }

    /**
     * Stores {@code value} unless the word already holds it: a run repeated with the same context
     * finds its words in place (the code changes BUDGET only around helper calls), and on the
     * shared test machines a load cost less than a store before the jffi call (about 0.5 ns each).
     */
    private void update(int field, long value) {
        if (get(field) != value) set(field, value);
    }

    /** The words a run that ended early (an error, a helper's exit) may leave changed, as a new block has them. */
    void resetAfterRun() {
        set(EnvLayout.STATUS, 0);
        set(EnvLayout.DEPTH, 1);
        set(EnvLayout.SCRATCH_LIVE, 0);
    }

    /** Writes the region table and the fast-path region cache for {@code regions} (room checked by the caller). */
    void bind(List<MemoryRegion> regions) {
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
