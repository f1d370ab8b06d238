package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.util.Optional;

/**
 * Storage of {@code BPF_MAP_TYPE_STACK_TRACE} ({@code kernel/bpf/stackmap.c}), off-heap so that Java
 * and native code share it: {@code roundup_pow_of_two(max_entries)} buckets, each empty or naming one
 * of {@code max_entries} preallocated elements {@code {hash, nr, ips[value_size / 8]}}; the elements
 * not in a bucket sit on a lock-free free list (the kernel's {@code pcpu_freelist}). A bucket changes
 * only by an atomic exchange, an element only while it is off every bucket, so readers never see a
 * half-written trace in a bucket they found — except a racing reader of a bucket that is being
 * replaced, as in the kernel, whose compare in {@code __bpf_get_stackid} is just as unlocked.
 *
 * <p>Native layout (one block at {@link #address()}, all little-endian):
 * <pre>
 *   0                 u64 free list head: tag &lt;&lt; 32 | (top element + 1), 0 when empty (the tag stops ABA)
 *   8                 u64 fresh: elements never used yet start here (taken by CAS when the list is empty)
 *   16                u32 buckets[buckets()]: element + 1, 0 when empty
 *   elementsOffset()  elements, elementStride() bytes each:
 *                       +0 u32 hash, +4 u32 nr, +8 u32 next free element + 1, +16 u64 ips[maxDepth()]
 * </pre>
 * Elements are taken from the list, else fresh from the untouched end of the block, so a map that
 * declares many entries (the CLI's stackcount widens to 2^20) commits memory only for the traces it
 * stores. The key is the u32 bucket id; the Java value is {@code value_size} bytes of u64 ips, zero after
 * {@code nr}. {@code bpf_get_stackid}'s rules are {@code dev.bpf4j.stack.StackIds}'s.
 */
public final class StackTraceMap extends BpfMap {
    /** One stored trace: {@code hash} as the kernel computes it, {@code ips} innermost first ({@code nr = ips.length}). */
    public record Bucket(int hash, long[] ips) {
        public int nr() { return ips.length; }
    }

    public static final int FREE_HEAD = 0, FRESH = 8, BUCKETS = 16;
    public static final int ELEMENT_HASH = 0, ELEMENT_NR = 4, ELEMENT_NEXT_FREE = 8, ELEMENT_IPS = 16;

    private final int buckets;
    private final long elementsOffset, stride;
    private final long block;

    public StackTraceMap(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type() == MapType.STACK_TRACE, "not a stack trace map");
        CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE | CreateChecks.ACCESS_MASK | MapFlags.BPF_F_STACK_BUILD_ID);
        CreateChecks.require(def, def.keySize() == 4 && def.valueSize() >= 8 && def.valueSize() % 8 == 0 && def.maxEntries() != 0,
                "stack trace maps need key_size 4, value_size a non-zero multiple of 8 and max_entries > 0");
        if (Integer.toUnsignedLong(def.maxEntries()) > 1 << 24) throw CreateChecks.fail(def, Errno.E2BIG, "max_entries too large");
        int n = Integer.highestOneBit(def.maxEntries());
        if (n != def.maxEntries()) n <<= 1;
        this.buckets = n;
        this.elementsOffset = (BUCKETS + 4L * n + 7) & ~7L;
        this.stride = ELEMENT_IPS + (long) def.valueSize();
        long size = elementsOffset + stride * def.maxEntries();
        try {
            this.block = NativeMemory.allocate(size);
        } catch (OutOfMemoryError e) {
            throw CreateChecks.fail(def, Errno.ENOMEM, "cannot preallocate " + size + " bytes of elements");
        }
        NativeMemory.setMemory(block, elementsOffset, (byte) 0);   // header and buckets; elements are written before use
    }

    public int buckets() { return buckets; }

    /** Most ips a bucket holds: {@code value_size / 8}. */
    public int maxDepth() { return def.valueSize() / 8; }

    /** The native block (layout in the class comment); valid until the map is closed. */
    public long address() {
        checkOpen();
        return block;
    }

    public long elementsOffset() { return elementsOffset; }

    public long elementStride() { return stride; }

    // ---- the primitives of __bpf_get_stackid, in the kernel's order ----

    /** {@code READ_ONCE(buckets[id])}: the element in bucket {@code id}, or -1 when empty. */
    public int bucketElement(int id) {
        checkBucket(id);
        return NativeMemory.getIntVolatile(bucketWord(id)) - 1;
    }

    public int elementHash(int e) { return NativeMemory.getInt(element(e) + ELEMENT_HASH); }

    /** Whether element {@code e} holds exactly {@code nr} ips equal to {@code ips[from, from + nr)}. */
    public boolean elementHolds(int e, long[] ips, int from, int nr) {
        long a = element(e);
        if (NativeMemory.getInt(a + ELEMENT_NR) != nr) return false;
        for (int i = 0; i < nr; i++) if (NativeMemory.getLong(a + ELEMENT_IPS + 8L * i) != ips[from + i]) return false;
        return true;
    }

    /** {@code pcpu_freelist_pop}: a free element, or -1 when every element holds a trace (the helper's -ENOMEM). */
    public int popFree() {
        checkOpen();
        while (true) {
            long head = NativeMemory.getLongVolatile(block + FREE_HEAD);
            int top = (int) head;
            if (top == 0) return fresh();
            int next = NativeMemory.getIntVolatile(element(top - 1) + ELEMENT_NEXT_FREE);
            long tag = (head >>> 32) + 1;
            if (NativeMemory.casLong(block + FREE_HEAD, head, tag << 32 | Integer.toUnsignedLong(next))) return top - 1;
        }
    }

    /** An element never used yet, or -1 when all {@code max_entries} were handed out. */
    private int fresh() {
        while (true) {
            long f = NativeMemory.getLongVolatile(block + FRESH);
            if (f >= def.maxEntries()) return -1;
            if (NativeMemory.casLong(block + FRESH, f, f + 1)) return (int) f;
        }
    }

    /** {@code pcpu_freelist_push}: element {@code e} left its bucket. */
    public void pushFree(int e) {
        checkElement(e);
        while (true) {
            long head = NativeMemory.getLongVolatile(block + FREE_HEAD);
            NativeMemory.putIntRelease(element(e) + ELEMENT_NEXT_FREE, (int) head);
            long tag = (head >>> 32) + 1;
            if (NativeMemory.casLong(block + FREE_HEAD, head, tag << 32 | (e + 1))) return;
        }
    }

    /** Writes a free element (off every bucket): {@code hash}, {@code nr} and the ips {@code ips[from, from + nr)}. */
    public void fillElement(int e, int hash, long[] ips, int from, int nr) {
        checkElement(e);
        if (nr < 0 || nr > maxDepth()) throw new BpfMapException(Errno.EINVAL, describe() + ": " + nr + " ips exceed the depth " + maxDepth());
        long a = element(e);
        for (int i = 0; i < nr; i++) NativeMemory.putLong(a + ELEMENT_IPS + 8L * i, ips[from + i]);
        NativeMemory.putInt(a + ELEMENT_HASH, hash);
        NativeMemory.putInt(a + ELEMENT_NR, nr);
    }

    /** {@code xchg(&buckets[id], e)} ({@code e} = -1 empties it): the element that was there, or -1. */
    public int exchangeElement(int id, int e) {
        checkBucket(id);
        if (e != -1) checkElement(e);
        return NativeMemory.getAndSetInt(bucketWord(id), e + 1) - 1;
    }

    // ---- whole traces, for Java callers ----

    /**
     * The trace in bucket {@code id}, or null: copied as bpf_stackmap_copy does, with the element taken
     * out of its bucket for the copy and put back after (so no writer can reuse it meanwhile).
     */
    public Bucket bucket(int id) {
        checkOpen();
        if (!inRange(id)) return null;
        int e = exchangeElement(id, -1);
        if (e < 0) return null;
        long a = element(e);
        long[] ips = new long[NativeMemory.getInt(a + ELEMENT_NR)];
        for (int i = 0; i < ips.length; i++) ips[i] = NativeMemory.getLong(a + ELEMENT_IPS + 8L * i);
        Bucket b = new Bucket(NativeMemory.getInt(a + ELEMENT_HASH), ips);
        int old = exchangeElement(id, e);
        if (old >= 0) pushFree(old);
        return b;
    }

    /**
     * Atomically replaces bucket {@code id} (null empties it) and returns the old content (the kernel's
     * xchg); the new trace takes a free element: none left is {@code -ENOMEM}.
     */
    public Bucket exchange(int id, Bucket b) {
        checkOpen();
        if (!inRange(id)) throw new BpfMapException(Errno.E2BIG, describe() + ": bucket " + Integer.toUnsignedString(id) + " out of range");
        if (b != null && b.nr() > maxDepth()) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": " + b.nr() + " ips exceed the depth " + maxDepth());
        }
        int e = -1;
        if (b != null) {
            e = popFree();
            if (e < 0) throw new BpfMapException(Errno.ENOMEM, describe() + ": all " + def.maxEntries() + " elements hold traces");
            fillElement(e, b.hash(), b.ips(), 0, b.nr());
        }
        int old = exchangeElement(id, e);
        if (old < 0) return null;
        Bucket was = snapshot(old);
        pushFree(old);
        return was;
    }

    /** Installs {@code b} into bucket {@code id} only if it still holds a trace equal to {@code expected} (null: empty). */
    public boolean compareAndSet(int id, Bucket expected, Bucket b) {
        checkOpen();
        if (!inRange(id)) return false;
        int cur = NativeMemory.getIntVolatile(bucketWord(id)) - 1;
        if (expected == null ? cur >= 0 : cur < 0 || elementHash(cur) != expected.hash() || !elementHolds(cur, expected.ips(), 0, expected.nr())) {
            return false;
        }
        int e = -1;
        if (b != null) {
            e = popFree();
            if (e < 0) return false;
            fillElement(e, b.hash(), b.ips(), 0, b.nr());
        }
        if (!NativeMemory.casInt(bucketWord(id), cur + 1, e + 1)) {
            if (e >= 0) pushFree(e);
            return false;
        }
        if (cur >= 0) pushFree(cur);
        return true;
    }

    /** Elements on the free list now (a walk; exact only while nothing runs). */
    public int freeElements() {
        checkOpen();
        long n = def.maxEntries() - NativeMemory.getLongVolatile(block + FRESH);
        for (int top = (int) NativeMemory.getLongVolatile(block + FREE_HEAD); top != 0 && n <= def.maxEntries(); n++) {
            top = NativeMemory.getInt(element(top - 1) + ELEMENT_NEXT_FREE);
        }
        return (int) n;
    }

    public Optional<long[]> ips(int id) {
        Bucket b = bucket(id);
        return b == null ? Optional.empty() : Optional.of(b.ips().clone());
    }

    private Bucket snapshot(int e) {
        long a = element(e);
        long[] ips = new long[NativeMemory.getInt(a + ELEMENT_NR)];
        for (int i = 0; i < ips.length; i++) ips[i] = NativeMemory.getLong(a + ELEMENT_IPS + 8L * i);
        return new Bucket(NativeMemory.getInt(a + ELEMENT_HASH), ips);
    }

    private boolean inRange(int id) { return Integer.toUnsignedLong(id) < buckets; }

    private void checkBucket(int id) {
        checkOpen();
        if (!inRange(id)) throw new BpfMapException(Errno.E2BIG, describe() + ": bucket " + Integer.toUnsignedString(id) + " out of range");
    }

    private void checkElement(int e) {
        checkOpen();
        if (e < 0 || e >= def.maxEntries()) throw new IllegalArgumentException(describe() + ": no element " + e);
    }

    private long bucketWord(int id) { return block + BUCKETS + 4L * id; }

    private long element(int e) { return block + elementsOffset + stride * e; }

    /** bpf_stackmap_copy: nr ips then zeroes up to value_size. */
    @Override protected byte[] read(byte[] key) {
        Bucket b = bucket(ArrayKeys.u32(key));
        if (b == null) return null;
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(def.valueSize()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (long ip : b.ips()) out.putLong(ip);
        return out.array();
    }

    /** Storage is written by bpf_get_stackid, not by updates: -EINVAL, as the kernel's stack_map_update_elem. */
    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) { return -Errno.EINVAL; }

    @Override protected int remove(byte[] key) {
        int id = ArrayKeys.u32(key);
        if (!inRange(id)) return -Errno.E2BIG;
        int old = exchangeElement(id, -1);
        if (old < 0) return -Errno.ENOENT;
        pushFree(old);
        return 0;
    }

    /** stack_map_get_next_key: the next non-empty bucket after {@code key}; from 0 when key is null, out of range or empty. */
    @Override protected int next(byte[] key, byte[] out) {
        long id = key == null ? 0 : Integer.toUnsignedLong(ArrayKeys.u32(key));
        if (key != null) id = id >= buckets || bucketElement((int) id) < 0 ? 0 : id + 1;
        for (long i = id; i < buckets; i++) {
            if (bucketElement((int) i) >= 0) {
                out[0] = (byte) i; out[1] = (byte) (i >>> 8); out[2] = (byte) (i >>> 16); out[3] = (byte) (i >>> 24);
                return 0;
            }
        }
        return -Errno.ENOENT;
    }

    @Override protected int readAndRemove(byte[] key, byte[] out) {
        byte[] v = read(key);
        if (v == null) return -Errno.ENOENT;
        if (remove(key) != 0) return -Errno.ENOENT;
        System.arraycopy(v, 0, out, 0, v.length);
        return 0;
    }

    @Override public long programLookup(long keyAddress) { return 0; }

    @Override protected void free() {
        for (java.util.function.LongConsumer l : CLOSING) l.accept(block);   // before native helpers could reach freed memory
        NativeMemory.free(block);
    }

    private static final java.util.List<java.util.function.LongConsumer> CLOSING = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Calls {@code listener} with a map's block as it closes, before the block is freed (tables of native helpers). */
    public static void onClose(java.util.function.LongConsumer listener) { CLOSING.add(listener); }
}
