package dev.bpf4j.stack;

import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.runtime.NativeMemory;

/**
 * Which program-side map handles (r2 of {@code bpf_get_stackid}) name which stack trace map, in a
 * native table that native stack helpers scan: they never dereference r2, so a handle not found
 * here (another map type, garbage from an unverified program, a map not seen yet) goes to the Java
 * helper, which resolves it or fails with its usual error. The Java helper adds a handle once it
 * resolved it; a map forgets its handles when it closes. Maps with {@code BPF_F_STACK_BUILD_ID} are
 * never added.
 *
 * <pre>
 *   entry (48 bytes): +0 u64 handle (0: end of table, -1: forgotten)  +8 u64 map block
 *                     +16 u32 buckets - 1  +20 u32 value_size / 8  +24 u64 elements offset  +32 u64 element stride
 *                     +40 u64 max_entries
 * </pre>
 */
public final class StackMapHandles {
    public static final int ENTRY = 48, HANDLE = 0, BLOCK = 8, MASK = 16, DEPTH = 20, ELEMENTS = 24, STRIDE = 32, MAX_ENTRIES = 40;
    public static final int CAPACITY = 256;
    static final long FORGOTTEN = -1;

    private static final StackMapHandles GLOBAL = new StackMapHandles();

    private final long table;
    private int used;

    private StackMapHandles() {
        table = NativeMemory.allocate((long) ENTRY * (CAPACITY + 1));
        NativeMemory.setMemory(table, (long) ENTRY * (CAPACITY + 1), (byte) 0);   // the extra entry ends a full table
        StackTraceMap.onClose(this::forget);
    }

    public static StackMapHandles global() { return GLOBAL; }

    public long address() { return table; }

    /** Adds {@code handle} for {@code map} unless known, full, or a build-id map. Cheap when known. */
    public void add(long handle, StackTraceMap map) {
        if (handle == 0 || handle == FORGOTTEN || (map.definition().flags() & MapFlags.BPF_F_STACK_BUILD_ID) != 0) return;
        for (int i = 0; i < CAPACITY; i++) {
            long e = table + (long) ENTRY * i;
            long h = NativeMemory.getLongVolatile(e + HANDLE);
            if (h == 0) break;
            if (h == handle && NativeMemory.getLong(e + BLOCK) == map.address()) return;
        }
        put(handle, map);
    }

    private synchronized void put(long handle, StackTraceMap map) {
        if (!map.isOpen() || used >= CAPACITY) return;
        for (int i = 0; i < used; i++) {
            long e = table + (long) ENTRY * i;
            long h = NativeMemory.getLong(e + HANDLE);
            if (h != handle) continue;
            if (NativeMemory.getLong(e + BLOCK) == map.address()) return;
            NativeMemory.getAndSetLong(e + HANDLE, FORGOTTEN);   // the handle of a closed table, reused
        }
        long e = table + (long) ENTRY * used;
        NativeMemory.putLong(e + BLOCK, map.address());
        NativeMemory.putInt(e + MASK, map.buckets() - 1);
        NativeMemory.putInt(e + DEPTH, map.maxDepth());
        NativeMemory.putLong(e + ELEMENTS, map.elementsOffset());
        NativeMemory.putLong(e + STRIDE, map.elementStride());
        NativeMemory.putLong(e + MAX_ENTRIES, map.maxEntries());
        NativeMemory.casLong(e + HANDLE, 0, handle);   // publishes the fields
        used++;
    }

    /** Forgets every handle of the map whose block is {@code block} (it is closing). */
    public synchronized void forget(long block) {
        for (int i = 0; i < used; i++) {
            long e = table + (long) ENTRY * i;
            if (NativeMemory.getLong(e + BLOCK) == block) NativeMemory.getAndSetLong(e + HANDLE, FORGOTTEN);
        }
    }
}
