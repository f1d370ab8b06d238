package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.runtime.LegacyPacketOffsets;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * The env block a direct probe call starts from, which the trampoline stores on its stack on every
 * hit (its {@link #words} become constants in the trampoline's code): a fresh run (status 0, full
 * budget, depth 1) whose region table is the hit's pt_regs (slot 0, filled in by the trampoline,
 * also the fast read region) followed by the program's regions, and whose OWNER word lets the
 * helper bridge find the attached program (SCRATCH_BASE 0: the bridge fills it in on the first Java
 * helper call of a hit).
 */
final class EnvTemplate implements AutoCloseable {
    private final long address;
    private final int bytes;
    private boolean freed;

    /** {@code owner}: the {@code DirectRuns} id its Java helpers find the run by (0: native helpers only). */
    EnvTemplate(List<MemoryRegion> regions, long owner) {
        int count = 1 + regions.size();
        this.bytes = EnvLayout.sizeFor(count);
        this.address = NativeMemory.allocate(bytes);
        NativeMemory.setMemory(address, bytes, (byte) 0);
        put(EnvLayout.BUDGET, Limits.DEFAULT_BUDGET);
        put(EnvLayout.DEPTH, 1);
        put(EnvLayout.OWNER, owner);
        put(EnvLayout.REGION_COUNT, count);
        put(EnvLayout.FAST_W_START, -1L);   // no address is >= 0xffff... and <= 0
        put(EnvLayout.FAST_W_LAST, 0);
        put(EnvLayout.PKT_NET_OFF, LegacyPacketOffsets.NO_HEADER); // a probe's run has no packet
        put(EnvLayout.PKT_MAC_OFF, LegacyPacketOffsets.NO_HEADER);
        boolean fastWrite = false;
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            int base = EnvLayout.REGIONS + (i + 1) * EnvLayout.REGION_SIZE;
            put(base, r.start());
            put(base + EnvLayout.REGION_END, r.end());
            put(base + EnvLayout.REGION_WRITABLE, r.writable() ? 1 : 0);
            if (!fastWrite && r.writable() && r.length() >= 8 && Long.compareUnsigned(r.end(), r.start()) > 0) {
                put(EnvLayout.FAST_W_START, r.start());
                put(EnvLayout.FAST_W_LAST, r.end() - 8);
                fastWrite = true;
            }
        }
    }

    private void put(int field, long v) { NativeMemory.putLong(address + field, v); }

    long address() { return address; }

    /** The block as qwords: what the trampoline stores on each hit. */
    long[] words() {
        long[] w = new long[bytes / 8];
        for (int i = 0; i < w.length; i++) w[i] = NativeMemory.getLong(address + 8L * i);
        return w;
    }

    int bytes() { return bytes; }

    @Override public synchronized void close() {
        if (freed) return;
        freed = true;
        NativeMemory.free(address);
    }
}
