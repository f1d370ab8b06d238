package dev.bpf4j.runtime;

import dev.bpf4j.unwind.MemoryView;
import dev.bpf4j.unwind.Unwinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One invocation's inputs: the initial r1-r5, the memory regions the program may touch besides its
 * stack, the budget of taken back-edges plus calls, and the packet the legacy loads
 * {@code LD ABS/IND} read (none by default: every such load is out of range), and the run's
 * <em>stack source</em> for {@code bpf_get_stackid}/{@code bpf_get_stack}: the probe-site
 * {@link PtRegs} when the caller has them (unwound over the live thread stack, or over
 * {@link #stackSnapshot()} when one is given), else the Java caller's stack. Engines do not modify it.
 */
public final class RunContext {
    private final long[] args;
    private final List<MemoryRegion> regions;
    private final long budget;
    private final long packetAddress;
    private final long packetLength;
    private final PtRegs registers;
    private final MemoryView stackSnapshot;
    private final Unwinder unwinder;
    private final PacketBuffer packetBuffer;
    private final CurrentTask task;

    private RunContext(long[] args, List<MemoryRegion> regions, long budget, long packetAddress, long packetLength,
                       PtRegs registers, MemoryView stackSnapshot, Unwinder unwinder, PacketBuffer packetBuffer, CurrentTask task) {
        this.args = args;
        this.regions = List.copyOf(regions);
        this.budget = budget;
        this.packetAddress = packetAddress;
        this.packetLength = packetLength;
        this.registers = registers;
        this.stackSnapshot = stackSnapshot;
        this.unwinder = unwinder;
        this.packetBuffer = packetBuffer;
        this.task = task;
    }

    public static Builder builder() { return new Builder(); }

    /** Initial value of register r{@code 1 + i}, i in 0..4. */
    public long arg(int i) { return args[i]; }

    public List<MemoryRegion> regions() { return regions; }

    public long budget() { return budget; }

    /** Start of the packet {@code LD ABS/IND} read (0 when there is none). */
    public long packetAddress() { return packetAddress; }

    /** Bytes of that packet; 0 when there is none. */
    public long packetLength() { return packetLength; }

    /** The registers of the probe site the run stands for; empty for a plain run from Java. */
    public Optional<PtRegs> registers() { return Optional.ofNullable(registers); }

    /**
     * Stack memory to unwind {@link #registers()} over instead of the calling thread's live stack
     * (a sample's copy of the stack, or a stack built for a test).
     */
    public Optional<MemoryView> stackSnapshot() { return Optional.ofNullable(stackSnapshot); }

    /**
     * The unwinder for {@link #registers()} when they belong to another process's code (a sample of
     * another process: its mappings, not this JVM's); empty: this process's.
     */
    public Optional<Unwinder> unwinder() { return Optional.ofNullable(unwinder); }

    /**
     * The xdp_buff / sk_buff state the packet helpers read and move (null when the run has no such
     * packet): the only mutable part of a context, changed by helpers, never by engines.
     */
    public PacketBuffer packetBuffer() { return packetBuffer; }

    /** The task the run stands for (a perf_event program's sampled thread); empty: the calling thread. */
    public Optional<CurrentTask> task() { return Optional.ofNullable(task); }

    public static final class Builder {
        private final long[] args = new long[5];
        private final List<MemoryRegion> regions = new ArrayList<>();
        private long budget = Limits.DEFAULT_BUDGET;
        private long packetAddress;
        private long packetLength;
        private PtRegs registers;
        private MemoryView stackSnapshot;
        private Unwinder unwinder;
        private PacketBuffer packetBuffer;
        private CurrentTask task;

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

        /**
         * The packet the legacy loads {@code LD ABS/IND} read: {@code length} bytes of native memory
         * at {@code address}, big-endian as on the wire. It is not a region: plain loads reach it
         * only if a region covers it too (the object layer adds one for {@code data..data_end}).
         */
        public Builder packet(long address, long length) {
            if (length < 0) throw new IllegalArgumentException("negative packet length");
            if (address == 0 && length != 0) throw new IllegalArgumentException("packet of " + length + " bytes at address 0");
            this.packetAddress = address;
            this.packetLength = length;
            return this;
        }

        /** The probe-site registers the stack helpers unwind from (null: the Java caller's stack). */
        public Builder registers(PtRegs registers) { this.registers = registers; return this; }

        /** Memory holding the stack that {@link #registers} point into (null: the live thread stack). */
        public Builder stackSnapshot(MemoryView snapshot) { this.stackSnapshot = snapshot; return this; }

        /** The unwinder for the registers (null: this process's code). */
        public Builder unwinder(Unwinder unwinder) { this.unwinder = unwinder; return this; }
        /** The packet the packet helpers work on; its {@link PacketBuffer#region()} should be one of the regions. */
        public Builder packetBuffer(PacketBuffer buffer) { this.packetBuffer = buffer; return this; }

        /** The task the current-task helpers describe (null: the calling thread). */
        public Builder task(CurrentTask task) { this.task = task; return this; }

        /** Fails when a snapshot is given without registers to start the unwind from. */
        public RunContext build() {
            if (stackSnapshot != null && registers == null) {
                throw new IllegalStateException("a stack snapshot needs the registers (ip, sp, bp) to unwind it from");
            }
            return new RunContext(args.clone(), regions, budget, packetAddress, packetLength, registers, stackSnapshot, unwinder, packetBuffer, task);
        }
    }
}
