package dev.bpf4j.runtime;

import java.util.Optional;
import java.util.function.LongUnaryOperator;

/**
 * What a JIT may emit instead of calling {@code bpf_map_lookup_elem} when r1 is a constant at the
 * call site, as the kernel's {@code map_gen_lookup} does: the layout of the map whose handle that
 * constant is. The same layout serves {@code bpf_map_update_elem} on an array whose values a copy
 * may replace ({@link Elements#updatable}). The interpreter uses it at the same call sites, in Java
 * (for a hash map through {@link HashBuckets#javaLookup}). The helper's Java body stays the
 * definition (and the path for every other call); the inline form must give the same r0 and memory.
 */
@FunctionalInterface
public interface LookupInlining {
    /** The layout behind handle {@code r1}, or empty when {@code r1} is anything else (then the helper is called). */
    Optional<Target> targetFor(long r1);

    /**
     * For {@code bpf_spin_lock}/{@code bpf_spin_unlock}: the value arrays whose {@code struct bpf_spin_lock}
     * words the helper accepts now (open maps programs may write). A JIT may take or release a lock
     * that lies in one of them itself ({@code lock cmpxchg} / {@code xchg} on the 4-byte word, the
     * protocol of {@code dev.bpf4j.maps.SpinLock}) and must call the helper for any other address.
     */
    default java.util.List<LockValues> lockValues() { return java.util.List.of(); }

    /**
     * Values of {@code stride} bytes from {@code base} over {@code size} bytes, each with its lock word
     * {@code lockOffset} bytes in (4-byte aligned); valid while the 8-byte word at {@code openWord} is non-zero.
     */
    record LockValues(long base, long size, int stride, int lockOffset, long openWord) {
        public LockValues {
            if (base == 0 || size <= 0 || stride <= 0 || lockOffset < 0 || (lockOffset & 3) != 0 || lockOffset + 4 > stride
                    || openWord == 0) {
                throw new IllegalArgumentException("not a lock array: " + base + ", " + size + ", " + stride + ", " + lockOffset);
            }
        }

        /** True when {@code address} is one of these lock words (what {@code BpfMap.isSpinLock} answers for an open map). */
        public boolean holds(long address) {
            return address >= base && address - base < size && (address - base) % stride == lockOffset;
        }
    }

    /**
     * A map whose lookups a JIT may inline. Common to both: the value of element (slot) {@code s} for CPU
     * {@code cpu} is at {@code valuesBase + (s * cpus + cpu) * stride}; {@code cpus} is 1 for a map that
     * is not per-CPU (cpu 0), else one value per possible CPU, and {@code cpu} is what {@code int
     * currentCpu(void)} (a native function, 0 for none: cpu 0) returns when it is below {@code cpus},
     * else 0. The values stay at these addresses while the 8-byte word at {@code openWord} is non-zero
     * (the map is open); after that the helper must be called (it refuses a closed map). The word stays
     * readable as long as the map is reachable.
     */
    sealed interface Target permits Elements, HashBuckets {
        long valuesBase();
        int stride();
        int keySize();
        long openWord();
        int cpus();
        long currentCpu();
    }

    /**
     * An ARRAY or PERCPU_ARRAY map: element {@code i < maxEntries} (u32 compare) of the key's u32 index
     * is slot {@code i}; any other index looks up NULL. {@code updatable}: a program's
     * {@code bpf_map_update_elem} with flags {@code BPF_ANY} or {@code BPF_EXIST} and an index below
     * {@code maxEntries} copies the {@code valueSize} bytes at r3 into slot {@code i} (its value for
     * the current CPU, in a per-CPU array) and answers 0,
     * and one past the end answers {@code -E2BIG}, as {@code array_map_update_elem} does (false for a
     * value with a {@code bpf_spin_lock}, which the copy leaves alone, and for a map programs may not write).
     */
    record Elements(long valuesBase, int maxEntries, int stride, int keySize, long openWord, int cpus, long currentCpu,
                    int valueSize, boolean updatable) implements Target {
        public Elements {
            if (valuesBase == 0 || maxEntries == 0 || stride <= 0 || keySize != 4 || openWord == 0 || cpus <= 0
                    || valueSize <= 0 || valueSize > stride) {
                throw new IllegalArgumentException("not an array map's elements: " + valuesBase + ", " + maxEntries + ", " + stride
                        + ", " + keySize + ", " + openWord + ", " + cpus + ", " + valueSize);
            }
        }

        /** A plain (not per-CPU) array whose updates are not inlined. */
        public Elements(long valuesBase, int maxEntries, int stride, int keySize, long openWord) {
            this(valuesBase, maxEntries, stride, keySize, openWord, 1, 0, stride, false);
        }
    }

    /**
     * A HASH, PERCPU_HASH, LRU_HASH or LRU_PERCPU_HASH map's index, laid out from {@code indexBase} as 32-bit words: {@code
     * buckets} (a power of two) bucket heads, then {@code maxEntries} next links from {@code nextOffset},
     * then {@code maxEntries} key hashes ({@link KeyHash}) from {@code hashesOffset}, then {@code
     * maxEntries} keys of {@code keySize} bytes from {@code keysOffset}. A chain is walked from the head
     * of bucket {@code hash & (buckets - 1)}: a word {@code >= 0} is a slot, a negative word {@code ~b}
     * ends the chain of bucket {@code b} (the kernel's {@code hlist_nulls} marker). Writers change the
     * index under their bucket's lock and publish a link last; a reader that takes no lock and ends at
     * another bucket's marker (its slot was deleted and reused meanwhile) must start the walk again, and
     * must bound the walk, as its chain may change under it. An LRU map has {@code refBits}, one byte
     * per slot that a lookup sets to 1 for the slot it finds ({@code bpf_lru_node_set_ref}); 0 for the
     * other kinds. {@code javaLookup} is the same lookup for an engine that runs Java rather than
     * generating code (the interpreter): the key's address to the value's address a program sees, or 0
     * when absent, as the helper answers once it has checked its arguments; only while the map is open.
     * {@code writes}: where a JIT may update and delete elements itself ({@link HashWrites}), or null.
     */
    record HashBuckets(long indexBase, int buckets, int maxEntries, int nextOffset, int hashesOffset, int keysOffset,
                       long valuesBase, int stride, int keySize, long openWord, int cpus, long currentCpu, long refBits,
                       LongUnaryOperator javaLookup, HashWrites writes) implements Target {
        public HashBuckets {
            if (indexBase == 0 || Integer.bitCount(buckets) != 1 || maxEntries <= 0 || nextOffset < 0 || hashesOffset < 0
                    || keysOffset < 0 || valuesBase == 0 || stride <= 0 || keySize <= 0 || openWord == 0 || cpus <= 0
                    || javaLookup == null) {
                throw new IllegalArgumentException("not a hash map's index: " + indexBase + ", " + buckets + ", " + maxEntries
                        + ", " + keySize + ", " + openWord + ", " + cpus);
            }
        }
    }

    /**
     * What a program's {@code bpf_map_update_elem} and {@code bpf_map_delete_elem} on a hash map change,
     * for a JIT that runs their common cases itself ({@code htab_map_update_elem}, {@code
     * htab_lru_map_update_elem}, {@code htab_map_delete_elem}) and calls the helper for the rest:
     * <ul>
     * <li>bucket {@code b}'s lock is the 4-byte word at {@code indexBase + locksOffset + 4 * b}: 0 free,
     *     1 held, taken with an atomic swap or compare-and-swap and released with a store of 0. Every
     *     change of the bucket's chain, of the slots in it, and of a linked slot's value (but for
     *     {@code BPF_F_LOCK} copies, under the value's own lock) happens under it;
     * <li>{@code linkedOffset}: one byte per slot, 1 while it is in a bucket;
     * <li>{@code pool}: the free list, a lock word at 0 (as the buckets'), the count of free slots at 4,
     *     the free slots as u32 words from 8, popped from and pushed to the end; taken while holding a
     *     bucket lock or none, never the other way round;
     * <li>a linked slot's {@code valueSize} bytes hold its value; {@code spinLockOffset} ({@code -1}: none)
     *     is the value's {@code bpf_spin_lock}, which copies leave alone and a new element gets as 0.
     *     In a per-CPU map ({@link HashBuckets#cpus} above 1) slot {@code s} has one value per possible
     *     CPU, CPU {@code c}'s at {@code valuesBase + (s * cpus + c) * stride}: an update of an existing
     *     element writes the current CPU's ({@link HashBuckets#currentCpu}), a new element gets zeroes
     *     in all {@code cpus * stride} bytes and then the current CPU's value;
     * <li>{@code lruClock} (0 in a map that does not evict): an LRU map's clock, a lock word at 0 (taken
     *     before any bucket lock, never while holding one), the hand (u32 slot) at 4, the count of
     *     slots taken for an insert and not yet linked or given back at 8 (changed with atomic adds),
     *     and from 16 the reference bytes ({@link HashBuckets#refBits}).
     * </ul>
     * A new element is linked as the lookup's readers expect: key, hash and next link written first,
     * then the bucket head with a release store. An LRU map's reference byte is set on an update of an
     * existing element and cleared on a new one. A full LRU map evicts as {@code dev.bpf4j.maps.LruClock}
     * does: with no bucket lock held, under the clock lock, advance the hand over at most {@code 2 *
     * maxEntries + 1} slots, skipping unlinked ones and clearing set reference bytes, and unlink the
     * first linked slot whose byte was clear (re-checked under its bucket's lock); when the sweep ends
     * without one, pop the free list; then insert into that slot as a fresh one (giving it back to the
     * free list when the key turned up meanwhile).
     */
    record HashWrites(int locksOffset, int linkedOffset, long pool, int valueSize, int spinLockOffset, long lruClock) {
        public HashWrites {
            if (locksOffset < 0 || linkedOffset < 0 || pool == 0 || valueSize <= 0 || spinLockOffset < -1) {
                throw new IllegalArgumentException("not a hash map's writer layout: " + locksOffset + ", " + linkedOffset + ", " + pool);
            }
        }
    }
}
