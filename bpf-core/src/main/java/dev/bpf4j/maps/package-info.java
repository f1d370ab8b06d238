/**
 * Off-heap BPF maps with the kernel's semantics and errno results: {@link dev.bpf4j.maps.ArrayMap}
 * (ARRAY, PERCPU_ARRAY), {@link dev.bpf4j.maps.HashTabMap} (HASH, PERCPU_HASH, LRU_HASH,
 * LRU_PERCPU_HASH), {@link dev.bpf4j.maps.QueueStackMap}, {@link dev.bpf4j.maps.RingBufMap} with its
 * {@link dev.bpf4j.maps.RingBufferReader}, {@link dev.bpf4j.maps.ProgArrayMap}, the storage of
 * {@link dev.bpf4j.maps.StackTraceMap} and {@link dev.bpf4j.maps.MapOfMaps} (ARRAY_OF_MAPS, HASH_OF_MAPS,
 * whose values are other maps' {@link dev.bpf4j.maps.BpfMap#id() ids}). {@link dev.bpf4j.maps.Maps#create} builds one from a
 * {@link dev.bpf4j.maps.MapDefinition}; a {@link dev.bpf4j.maps.MapTable} gives the maps of a loaded
 * object their native handles and the regions engines add to each run.
 *
 * <p>Values are preallocated and never move, so pointers programs get stay valid memory while the map is
 * open, and atomics on them are atomic across threads. Per-CPU maps keep one value per possible CPU; a
 * program sees the slot of the CPU it runs on ({@code sched_getcpu}), Java sees all of them.
 *
 * <p>A value may hold a {@code bpf_spin_lock} ({@link dev.bpf4j.maps.MapDefinition#spinLockOffset}, from
 * BTF; HASH and ARRAY only): {@code BPF_F_LOCK} updates and lookups copy under it, and
 * {@link dev.bpf4j.maps.SpinLock} is shared with the {@code bpf_spin_lock} helpers. Without one,
 * {@code BPF_F_LOCK} is {@code -EINVAL} as in the kernel.
 *
 * <p>Not implemented: non-preallocated hash maps ({@code BPF_F_NO_PREALLOC} is accepted and behaves
 * preallocated), {@code BPF_F_WRONLY_PROG} enforcement (a region is read-only or read-write), the
 * kernel's element swap on hash updates (bpf4j updates in place, see {@link dev.bpf4j.maps.HashTabMap}).
 */
package dev.bpf4j.maps;
