package dev.bpf4j.stack;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.PlainStep;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeMapListener;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.Unwinder;

/**
 * The unwind steps the Java {@link Unwinder} has confirmed, in a native open-addressing table that
 * native stack helpers read without locks: for a trace's first ip (key {@code ip | FIRST}) and for
 * each return address {@code ra} it took as it was (key {@code ra - 1}, the lookup address), the
 * {@link PlainStep} the unwinder takes there whatever came before. A native walk repeats these steps
 * and gives the walk back to Java at the first key it does not find — so it either gives the Java
 * unwinder's trace or none. Only Java writes (under this object's lock: fields first, the key last,
 * published by a CAS); the table stops growing at 3/4 full.
 *
 * <pre>
 *   slot (32 bytes): +0 u64 key (0: empty)  +8 u8 kind (1 frame pointer, 2 CFI, 3 outermost)
 *                    +9 u8 CFA from rbp     +10 u8 bp rule (PlainStep.BpRule ordinal)
 *                    +12 s32 CFA offset     +16 s32 ra offset     +20 s32 bp offset
 * </pre>
 */
public final class ConfirmedSteps {
    public static final int SLOT = 32, KEY = 0, KIND = 8, CFA_FROM_RBP = 9, BP_RULE = 10, CFA_OFFSET = 12, RA_OFFSET = 16, BP_OFFSET = 20;
    public static final int KIND_FRAME_POINTER = 1, KIND_CFI = 2, KIND_OUTERMOST = 3;
    /** The key of a forgotten step: no lookup address is 1. */
    public static final long GONE = 1;
    /** Marks the key of a trace's first ip (looked up at the ip itself, not at ip - 1). */
    public static final long FIRST = 1L << 63;
    public static final int LOG2_SLOTS = 16;
    /** Multiplier of the Fibonacci hash that picks a key's first slot: {@code (key * HASH) >>> (64 - LOG2_SLOTS)}. */
    public static final long HASH = 0x9e3779b97f4a7c15L;

    private static final ConfirmedSteps GLOBAL = new ConfirmedSteps();

    private final long table;
    private int used;

    private ConfirmedSteps() {
        long size = (long) SLOT << LOG2_SLOTS;
        table = NativeMemory.allocate(size);
        NativeMemory.setMemory(table, size, (byte) 0);
    }

    public static ConfirmedSteps global() { return GLOBAL; }

    static {
        // JIT programs, trampolines and generated helpers come and go at reused addresses: a step
        // confirmed in a region is forgotten when the region goes, and when another takes its place.
        CodeMap.global().addListener(new CodeMapListener() {
            @Override public void registered(CodeRegion region) { GLOBAL.forget(region.start(), region.end()); }

            @Override public void unregistered(CodeRegion region) { GLOBAL.forget(region.start(), region.end()); }
        });
    }

    /**
     * Forgets the steps looked up in {@code [start, end)}. Their keys become {@link #GONE}, which no
     * lookup matches and which keeps the probe chains through them, so native walks running meanwhile
     * stay safe (one that already found such a step uses it, as a walk racing the unmapping would).
     */
    public synchronized void forget(long start, long end) {
        if (used == 0) return;
        for (long s = table, last = table + ((long) SLOT << LOG2_SLOTS); s < last; s += SLOT) {
            long k = NativeMemory.getLongVolatile(s + KEY);
            if (k == 0 || k == GONE) continue;
            long at = (k & FIRST) != 0 ? k & ~FIRST : k;
            if (Long.compareUnsigned(at, start) >= 0 && Long.compareUnsigned(at, end) < 0) NativeMemory.casLong(s + KEY, k, GONE);
        }
    }

    /** The table's address, for the life of the process. */
    public long address() { return table; }

    public int mask() { return (1 << LOG2_SLOTS) - 1; }

    /** The slot of {@code key}, or 0 when absent. The same probe sequence native code runs. */
    public long find(long key) {
        for (int i = slotOf(key), n = 0; n <= mask(); i = (i + 1) & mask(), n++) {
            long s = table + (long) SLOT * i;
            long k = NativeMemory.getLongVolatile(s + KEY);
            if (k == key) return s;
            if (k == 0) return 0;
        }
        return 0;
    }

    /**
     * Records the steps behind {@code trace}, a live unwind by {@code unwinder} (innermost first): the
     * first ip's step, then for each later ip the step at {@code ip - 1} if the unwinder takes that
     * return address as it is. Steps the unwinder cannot take context-free are left out.
     */
    public void learn(Unwinder unwinder, long[] trace) {
        for (int i = 0; i < trace.length; i++) {
            long ip = trace[i];
            long key = i == 0 ? ip | FIRST : ip - 1;
            if (ip == 0 || find(key) != 0) continue;
            if (i > 0 && !unwinder.plainReturn(ip)) continue;
            unwinder.plainStep(i == 0 ? ip : ip - 1, i == 0).ifPresent(step -> put(key, step));
        }
    }

    private synchronized void put(long key, PlainStep step) {
        if (find(key) != 0 || used >= (mask() + 1) / 4 * 3) return;
        int i = slotOf(key);
        while (NativeMemory.getLongVolatile(table + (long) SLOT * i + KEY) != 0) i = (i + 1) & mask();
        long s = table + (long) SLOT * i;
        int kind = switch (step.kind()) {
            case FRAME_POINTER -> KIND_FRAME_POINTER;
            case CFI -> KIND_CFI;
            case OUTERMOST -> KIND_OUTERMOST;
        };
        NativeMemory.putByte(s + KIND, (byte) kind);
        NativeMemory.putByte(s + CFA_FROM_RBP, (byte) (step.cfaFromRbp() ? 1 : 0));
        NativeMemory.putByte(s + BP_RULE, (byte) step.bp().ordinal());
        NativeMemory.putInt(s + CFA_OFFSET, Math.toIntExact(step.cfaOffset()));
        NativeMemory.putInt(s + RA_OFFSET, Math.toIntExact(step.raOffset()));
        NativeMemory.putInt(s + BP_OFFSET, Math.toIntExact(step.bpOffset()));
        NativeMemory.casLong(s + KEY, 0, key);   // publishes the fields written above
        used++;
    }

    /** Forgets every step (tests; code unmapped). Not safe while native walks run. */
    public synchronized void clear() {
        NativeMemory.setMemory(table, (long) SLOT << LOG2_SLOTS, (byte) 0);
        used = 0;
    }

    public synchronized int size() { return used; }

    private static int slotOf(long key) { return (int) ((key * HASH) >>> (64 - LOG2_SLOTS)); }
}
