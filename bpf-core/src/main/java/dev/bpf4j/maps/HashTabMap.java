package dev.bpf4j.maps;

import dev.bpf4j.runtime.KeyHash;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * {@code BPF_MAP_TYPE_HASH}, {@code PERCPU_HASH}, {@code LRU_HASH} and {@code LRU_PERCPU_HASH}
 * ({@code kernel/bpf/hashtab.c}, preallocated). Values live in a native pool of {@code max_entries}
 * slots that never moves; the bucket lists ({@link HashIndex}) are off-heap too, changed under
 * per-bucket lock words that JIT code takes as well, and walked without one by program lookups (in Java and in JIT code), as the
 * kernel's RCU lists. A full map fails inserts with {@code -E2BIG}; the LRU kinds evict instead
 * ({@link LruClock}).
 *
 * <p>Difference from the kernel: an update of an existing key copies the new value in place (the
 * kernel's non-per-CPU hash swaps in a fresh element), so a pointer a program holds keeps naming the
 * element that has that key, and atomics on it are never lost to a concurrent update.
 */
public final class HashTabMap extends BpfMap {
    private final HashIndex index;
    private final SlotPool pool;
    private final LruClock lru;
    private final NativeArena arena;
    private final OpenWord openWord = new OpenWord();
    private final int stride;
    private final int cpus;

    public HashTabMap(MapDefinition def) {
        super(def);
        MapType t = def.type();
        CreateChecks.require(def, t.isHash(), "not a hash map type");
        CreateChecks.flags(def, CreateChecks.HTAB_MASK);
        boolean percpuLru = (def.flags() & MapFlags.BPF_F_NO_COMMON_LRU) != 0;
        CreateChecks.require(def, t.isLru() || !percpuLru, "BPF_F_NO_COMMON_LRU needs an LRU map");
        if (t.isLru() && (def.flags() & MapFlags.BPF_F_NO_PREALLOC) != 0) {
            throw CreateChecks.fail(def, Errno.ENOTSUPP, "LRU maps are always preallocated (BPF_F_NO_PREALLOC)");
        }
        CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() != 0 && def.valueSize() != 0,
                "hash maps need key_size, value_size and max_entries > 0");
        if (Integer.toUnsignedLong(def.keySize()) + Integer.toUnsignedLong(def.valueSize()) >= CreateChecks.KMALLOC_MAX_SIZE - 48) {
            throw CreateChecks.fail(def, Errno.E2BIG, "key_size + value_size too large");
        }
        if (t.isPercpu() && def.valueStride() > CreateChecks.PCPU_MIN_UNIT_SIZE) {
            throw CreateChecks.fail(def, Errno.E2BIG, "per-CPU value_size above " + CreateChecks.PCPU_MIN_UNIT_SIZE);
        }
        if (Integer.toUnsignedLong(def.maxEntries()) > 1L << 30
                || (long) def.maxEntries() * def.keySize() > Integer.MAX_VALUE - 16) {
            throw CreateChecks.fail(def, Errno.E2BIG, "max_entries too large for bpf4j's preallocated pool");
        }
        this.stride = def.valueStride();
        this.cpus = t.isPercpu() ? Cpus.possible() : 1;
        long valueBytes = CreateChecks.arenaBytes(def, (long) def.maxEntries() * cpus, stride);
        // Four native blocks: a failure on the way frees the ones already taken.
        this.pool = new SlotPool(def.maxEntries());
        HashIndex idx = null;
        LruClock clock = null;
        try {
            idx = new HashIndex(def.maxEntries(), def.keySize());
            clock = t.isLru() ? new LruClock(idx, pool, def.maxEntries()) : null;
            this.arena = new NativeArena(valueBytes);
        } catch (RuntimeException | Error e) {
            if (clock != null) clock.free();
            if (idx != null) idx.free();
            pool.free();
            throw e;
        }
        this.index = idx;
        this.lru = clock;
    }

    @Override public List<MemoryRegion> regions() { return List.of(region("values", arena.base(), arena.size())); }

    @Override public boolean isSpinLock(long address) { return isSpinLock(address, arena.base(), arena.size(), stride); }

    @Override public dev.bpf4j.runtime.LookupInlining.LockValues lockValues() { return lockValues(arena.base(), arena.size(), stride, openWord.address()); }

    /**
     * Where a JIT may look keys up without calling the helper ({@code htab_map_gen_lookup}), or null
     * where the index is too large for 32-bit offsets. The LRU kinds come with their reference bytes;
     * the interpreter gets {@link #programLookup} itself.
     */
    public LookupInlining.HashBuckets inlineLayout() {
        LookupInlining.HashWrites writes = def.readOnlyForPrograms() ? null
                : new LookupInlining.HashWrites(index.locksOffset(), index.linkedOffset(), pool.address(), def.valueSize(), def.spinLockOffset(),
                        lru == null ? 0 : lru.address());
        return index.layout(arena.base(), stride, openWord.address(), cpus, cpus == 1 ? 0 : Cpus.currentFunction(),
                lru == null ? 0 : lru.refBits(), this::programLookup, writes);
    }

    /** Number of elements in the map now. */
    public int size() { return def.maxEntries() - pool.available() - (lru == null ? 0 : lru.inFlight()); }

    private long slot(int s, int cpu) { return arena.base() + ((long) s * cpus + cpu) * stride; }

    /**
     * {@code bpf_map_lookup_elem}: the key hashed in place and its chain walked without the bucket lock,
     * as the JIT's inline lookup and the kernel's lookups do; a walk that keeps meeting changed chains
     * takes the lock.
     */
    @Override public long programLookup(long keyAddress) {
        checkOpen();
        int s = index.findUnlocked(KeyHash.of(keyAddress, def.keySize()), keyAddress);
        if (s == HashIndex.RETRY) return super.programLookup(keyAddress);
        if (s < 0) return 0;
        if (lru != null) lru.touch(s);
        return slot(s, cpus == 1 ? 0 : Cpus.current());
    }

    @Override public long programLookupPercpu(long keyAddress, long cpu) {
        if (cpus == 1) return super.programLookupPercpu(keyAddress, cpu);
        checkOpen();
        if (cpu < 0 || cpu >= cpus) return 0;
        int s = index.findUnlocked(KeyHash.of(keyAddress, def.keySize()), keyAddress);
        if (s == HashIndex.RETRY) {
            byte[] key = NativeMemory.read(keyAddress, def.keySize());
            int h = HashIndex.hash(key), b = index.bucketOf(h);
            index.lock(b);
            try { s = index.find(b, h, key); } finally { index.unlock(b); }
        }
        if (s < 0) return 0;
        if (lru != null) lru.touch(s);
        return slot(s, (int) cpu);
    }

    @Override protected long valueAddress(byte[] key, boolean fromProgram) {
        int h = HashIndex.hash(key), b = index.bucketOf(h);
        int s;
        index.lock(b);
        try { s = index.find(b, h, key); } finally { index.unlock(b); }
        if (s < 0) return 0;
        if (lru != null && fromProgram) lru.touch(s);
        return slot(s, cpus == 1 ? 0 : Cpus.current());
    }

    @Override protected byte[] read(byte[] key) { return read(key, false); }

    @Override protected byte[] read(byte[] key, boolean locked) {
        int h = HashIndex.hash(key), b = index.bucketOf(h);
        byte[] out = new byte[javaValueSize()]; // allocated before the lock: nothing under it throws
        index.lock(b);
        try {
            int s = index.find(b, h, key);
            if (s < 0) return null;
            if (locked) SpinLock.copyOutLocked(slot(s, 0), out, 0, def.valueSize(), def.spinLockOffset());
            else copyOut(s, out);
            return out;
        } finally {
            index.unlock(b);
        }
    }

    private byte[] copyOut(int s, byte[] out) {
        if (cpus == 1) SpinLock.copyOut(slot(s, 0), out, 0, def.valueSize(), def.spinLockOffset());
        else for (int c = 0; c < cpus; c++) NativeMemory.read(slot(s, c), out, c * stride, def.valueSize());
        return out;
    }

    /** Copies a value in: every CPU's ({@code allCpus}) or this CPU's, zeroing the others when {@code fresh}. */
    private void copyIn(int s, byte[] value, boolean allCpus, boolean fresh) {
        if (cpus == 1) {
            if (fresh && def.hasSpinLock()) NativeMemory.putInt(slot(s, 0) + def.spinLockOffset(), 0); // a new element's lock is free
            SpinLock.copyIn(slot(s, 0), value, 0, def.valueSize(), def.spinLockOffset());
        } else if (allCpus) {
            for (int c = 0; c < cpus; c++) NativeMemory.write(slot(s, c), value, c * stride, def.valueSize());
        } else {
            int cur = Cpus.current();
            // pcpu_init_value: a new element from a program gets zeroes on the other CPUs.
            if (fresh) NativeMemory.setMemory(slot(s, 0), (long) cpus * stride, (byte) 0);
            NativeMemory.write(slot(s, cur), value, 0, def.valueSize());
        }
    }

    /** hashtab.c check_flags: {@code -EEXIST} for NOEXIST on a present key, {@code -ENOENT} for EXIST on a missing one. */
    private static int checkFlags(int slot, long flags) {
        long f = flags & ~MapFlags.BPF_F_LOCK;
        if (slot >= 0 && f == MapFlags.BPF_NOEXIST) return -Errno.EEXIST;
        if (slot < 0 && f == MapFlags.BPF_EXIST) return -Errno.ENOENT;
        return 0;
    }

    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) {
        // Plain hash: (flags & ~BPF_F_LOCK) > BPF_EXIST is -EINVAL; per-CPU and LRU kinds reject BPF_F_LOCK too.
        boolean plain = cpus == 1 && lru == null;
        long unknown = plain ? flags & ~MapFlags.BPF_F_LOCK : flags;
        if (Long.compareUnsigned(unknown, MapFlags.BPF_EXIST) > 0) return -Errno.EINVAL;
        boolean lock = (flags & MapFlags.BPF_F_LOCK) != 0;
        if (lock && !def.hasSpinLock()) return -Errno.EINVAL;
        int h = HashIndex.hash(key), b = index.bucketOf(h);
        index.lock(b);
        try {
            int s = index.find(b, h, key);
            int err = checkFlags(s, flags);
            if (err != 0) return err;
            if (s >= 0 && lock) {
                SpinLock.copyInLocked(slot(s, 0), value, 0, def.valueSize(), def.spinLockOffset()); // in place, under the value's lock
                return 0;
            }
            if (s >= 0) {
                copyIn(s, value, allCpus, false);
                if (lru != null) lru.touch(s);
                return 0;
            }
            if (lru == null) {
                s = pool.pop();
                if (s < 0) return -Errno.E2BIG; // all preallocated elements are in use
                copyIn(s, value, allCpus, true);
                index.link(b, h, key, s);
                return 0;
            }
        } finally {
            index.unlock(b);
        }
        return insertLru(key, h, b, value, flags, allCpus);
    }

    /** LRU insert: take a free or evicted slot before locking the bucket, as prealloc_lru_pop does. */
    private int insertLru(byte[] key, int h, int b, byte[] value, long flags, boolean allCpus) {
        int fresh = lru.acquire();
        if (fresh < 0) return -Errno.ENOMEM;
        index.lock(b);
        try {
            try {
                int s = index.find(b, h, key); // another thread may have inserted meanwhile
                int err = checkFlags(s, flags);
                if (err != 0) return err;
                if (s >= 0) {
                    copyIn(s, value, allCpus, false);
                    lru.touch(s);
                    return 0;
                }
                copyIn(fresh, value, allCpus, true);
                index.link(b, h, key, fresh);
                fresh = -1;
                return 0;
            } finally {
                lru.release(fresh);
            }
        } finally {
            index.unlock(b);
        }
    }

    @Override protected int remove(byte[] key) {
        int h = HashIndex.hash(key), b = index.bucketOf(h);
        int s;
        index.lock(b);
        try {
            s = index.find(b, h, key);
            if (s < 0) return -Errno.ENOENT;
            index.unlink(b, s);
        } finally {
            index.unlock(b);
        }
        pool.push(s);
        return 0;
    }

    @Override protected int readAndRemove(byte[] key, byte[] out) {
        int h = HashIndex.hash(key), b = index.bucketOf(h);
        int s;
        index.lock(b);
        try {
            s = index.find(b, h, key);
            if (s < 0) return -Errno.ENOENT;
            copyOut(s, out);
            index.unlink(b, s);
        } finally {
            index.unlock(b);
        }
        pool.push(s);
        return 0;
    }

    /** htab_map_get_next_key: the next key in the same bucket, else the first of a later bucket; unknown key: the first. */
    @Override protected int next(byte[] key, byte[] out) {
        int start = 0;
        if (key != null) {
            int h = HashIndex.hash(key), b = index.bucketOf(h);
            index.lock(b);
            try {
                int s = index.find(b, h, key);
                if (s >= 0) {
                    int n = index.nextInBucket(s);
                    if (n >= 0) {
                        index.copyKey(n, out);
                        return 0;
                    }
                    start = b + 1;
                }
            } finally {
                index.unlock(b);
            }
        }
        for (int b = start; b < index.buckets(); b++) {
            index.lock(b);
            try {
                int s = index.head(b);
                if (s >= 0) {
                    index.copyKey(s, out);
                    return 0;
                }
            } finally {
                index.unlock(b);
            }
        }
        return -Errno.ENOENT;
    }

    @Override protected void free() {
        openWord.close(); // before the index and values go
        index.free();
        pool.free();
        if (lru != null) lru.free();
        arena.free();
    }
}
