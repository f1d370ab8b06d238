package dev.bpf4j.maps;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Storage of {@code BPF_MAP_TYPE_STACK_TRACE} ({@code kernel/bpf/stackmap.c}): {@code
 * roundup_pow_of_two(max_entries)} buckets, each empty or holding a {@link Bucket} (the trace's hash and
 * its {@code nr} instruction pointers). The key is the u32 bucket id; the Java value is
 * {@code value_size} bytes of u64 ips, zero after {@code nr}. {@code bpf_get_stackid}'s hashing,
 * {@code -EEXIST} and reuse rules belong to its helper (a later issue) and use {@link #bucket}/{@link #exchange}.
 */
public final class StackTraceMap extends BpfMap {
    /** One stored trace: {@code hash} as the kernel computes it, {@code ips} innermost first ({@code nr = ips.length}). */
    public record Bucket(int hash, long[] ips) {
        public int nr() { return ips.length; }
    }

    private final AtomicReferenceArray<Bucket> buckets;
    /** The kernel's preallocated free list holds max_entries elements, fewer than the buckets when not a power of two. */
    private final AtomicInteger freeElements;

    public StackTraceMap(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type() == MapType.STACK_TRACE, "not a stack trace map");
        CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE | CreateChecks.ACCESS_MASK | MapFlags.BPF_F_STACK_BUILD_ID);
        CreateChecks.require(def, def.keySize() == 4 && def.valueSize() >= 8 && def.valueSize() % 8 == 0 && def.maxEntries() != 0,
                "stack trace maps need key_size 4, value_size a non-zero multiple of 8 and max_entries > 0");
        if (Integer.toUnsignedLong(def.maxEntries()) > 1 << 24) throw CreateChecks.fail(def, Errno.E2BIG, "max_entries too large");
        int n = Integer.highestOneBit(def.maxEntries());
        if (n != def.maxEntries()) n <<= 1;
        this.buckets = new AtomicReferenceArray<>(n);
        this.freeElements = new AtomicInteger(def.maxEntries());
    }

    public int buckets() { return buckets.length(); }

    /** Most ips a bucket holds: {@code value_size / 8}. */
    public int maxDepth() { return def.valueSize() / 8; }

    /** The trace in bucket {@code id}, or null. */
    public Bucket bucket(int id) {
        checkOpen();
        return inRange(id) ? buckets.get(id) : null;
    }

    /** Atomically replaces bucket {@code id} (null empties it); returns the old content (the kernel's xchg). */
    public Bucket exchange(int id, Bucket b) {
        checkOpen();
        if (!inRange(id)) throw new BpfMapException(Errno.E2BIG, describe() + ": bucket " + Integer.toUnsignedString(id) + " out of range");
        if (b != null && b.nr() > maxDepth()) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": " + b.nr() + " ips exceed the depth " + maxDepth());
        }
        return buckets.getAndSet(id, b == null ? null : new Bucket(b.hash(), b.ips().clone()));
    }

    /** Atomically installs {@code b} into bucket {@code id} only if it still holds {@code expected}. */
    public boolean compareAndSet(int id, Bucket expected, Bucket b) {
        checkOpen();
        return inRange(id) && buckets.compareAndSet(id, expected, b);
    }

    /** pcpu_freelist_pop: false (the helper's -ENOMEM) when all max_entries elements hold traces. */
    public boolean takeElement() {
        while (true) {
            int n = freeElements.get();
            if (n <= 0) return false;
            if (freeElements.compareAndSet(n, n - 1)) return true;
        }
    }

    /** pcpu_freelist_push: an element left its bucket (replaced or deleted). */
    public void returnElement() { freeElements.incrementAndGet(); }

    public Optional<long[]> ips(int id) {
        Bucket b = bucket(id);
        return b == null ? Optional.empty() : Optional.of(b.ips().clone());
    }

    private boolean inRange(int id) { return Integer.toUnsignedLong(id) < buckets.length(); }


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
        if (buckets.getAndSet(id, null) == null) return -Errno.ENOENT;
        returnElement();
        return 0;
    }

    /** stack_map_get_next_key: the next non-empty bucket after {@code key}; from 0 when key is null, out of range or empty. */
    @Override protected int next(byte[] key, byte[] out) {
        long id = key == null ? 0 : Integer.toUnsignedLong(ArrayKeys.u32(key));
        if (key != null) id = id >= buckets.length() || buckets.get((int) id) == null ? 0 : id + 1;
        for (long i = id; i < buckets.length(); i++) {
            if (buckets.get((int) i) != null) {
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
        for (int i = 0; i < buckets.length(); i++) buckets.set(i, null);
    }
}
