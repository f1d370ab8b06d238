package dev.bpf4j.maps;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * {@code BPF_MAP_TYPE_ARRAY} and {@code BPF_MAP_TYPE_PERCPU_ARRAY} ({@code kernel/bpf/arraymap.c}):
 * {@code max_entries} preallocated, zeroed values of {@code round_up(value_size, 8)} bytes indexed by a
 * u32 key. Every element always exists, so delete is {@code -EINVAL} and {@code BPF_NOEXIST} is
 * {@code -EEXIST}. Per-CPU: element {@code i} of CPU {@code c} is slot {@code i * cpus + c}.
 */
public final class ArrayMap extends BpfMap {
    private final NativeArena arena;
    private final OpenWord openWord = new OpenWord();
    private final int stride;
    private final int cpus;

    public ArrayMap(MapDefinition def) {
        super(def);
        boolean percpu = def.type() == MapType.PERCPU_ARRAY;
        CreateChecks.require(def, def.type() == MapType.ARRAY || percpu, "not an array map type");
        CreateChecks.flags(def, CreateChecks.ARRAY_MASK);
        CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4 && def.valueSize() != 0,
                "array maps need key_size 4, value_size > 0 and max_entries > 0");
        CreateChecks.require(def, !(percpu && (def.flags() & (MapFlags.BPF_F_MMAPABLE | CreateChecks.BPF_F_INNER_MAP)) != 0),
                "per-CPU arrays cannot be mmapable or inner maps");
        if (percpu && def.valueStride() > CreateChecks.PCPU_MIN_UNIT_SIZE) {
            throw CreateChecks.fail(def, Errno.E2BIG, "per-CPU value_size above " + CreateChecks.PCPU_MIN_UNIT_SIZE);
        }
        if (Integer.toUnsignedLong(def.valueSize()) >= CreateChecks.KMALLOC_MAX_SIZE) {
            throw CreateChecks.fail(def, Errno.E2BIG, "value_size too large");
        }
        this.stride = def.valueStride();
        this.cpus = percpu ? Cpus.possible() : 1;
        this.arena = new NativeArena(CreateChecks.arenaBytes(def, Integer.toUnsignedLong(def.maxEntries()) * cpus, stride));
    }

    @Override public boolean isSpinLock(long address) { return isSpinLock(address, arena.base(), arena.size(), stride); }

    @Override public dev.bpf4j.runtime.LookupInlining.LockValues lockValues() { return lockValues(arena.base(), arena.size(), stride, openWord.address()); }

    /** Base of the value arena (element 0, CPU 0): the JIT may inline lookups as {@code base + index * stride}. */
    public long valuesBase() { return arena.base(); }

    /** The address of a word that is 1 while this map is open, 0 after {@link #close()}; valid while the map is reachable. */
    public long openWord() { return openWord.address(); }

    /** Values per element: {@link Cpus#possible()} for a per-CPU array (CPU {@code c}'s value of element {@code i} is slot {@code i * cpus + c}), else 1. */
    public int cpus() { return cpus; }

    /** {@code round_up(value_size, 8)}. */
    public int stride() { return stride; }

    /** Address of element {@code index} for CPU {@code cpu} (0 for plain arrays). */
    public long elementAddress(int index, int cpu) {
        checkOpen();
        if (Integer.toUnsignedLong(index) >= Integer.toUnsignedLong(def.maxEntries()) || cpu < 0 || cpu >= cpus) {
            throw new IndexOutOfBoundsException(describe() + ": no element " + Integer.toUnsignedString(index) + " cpu " + cpu);
        }
        return slot(index, cpu);
    }

    @Override public List<MemoryRegion> regions() { return List.of(region("values", arena.base(), arena.size())); }

    private long slot(int index, int cpu) { return arena.base() + ((long) index * cpus + cpu) * stride; }

    /** Element {@code index}'s value a program sees: this CPU's in a per-CPU array. */
    private long thisCpuSlot(int index) { return slot(index, cpus == 1 ? 0 : Cpus.current()); }

    private boolean inRange(int index) { return ArrayKeys.inRange(index, def.maxEntries()); }

    /** The key read in place (no copy): the lookup every program of an array map makes. */
    @Override public long programLookup(long keyAddress) {
        checkOpen();
        int i = NativeMemory.getInt(keyAddress);
        return inRange(i) ? thisCpuSlot(i) : 0;
    }

    @Override public long programLookupPercpu(long keyAddress, long cpu) {
        if (cpus == 1) return super.programLookupPercpu(keyAddress, cpu);
        checkOpen();
        int i = NativeMemory.getInt(keyAddress);
        return cpu >= 0 && cpu < cpus && inRange(i) ? slot(i, (int) cpu) : 0;
    }

    /**
     * The key read and the value copied in place, without the two byte arrays of the general path:
     * the update programs make, with {@code BPF_ANY} or {@code BPF_EXIST} into values without a
     * {@code bpf_spin_lock}. Other flags and locked values take {@link #write}, which answers the same
     * for these.
     */
    @Override public int programUpdate(long keyAddress, long valueAddress, long flags) {
        if (flags != MapFlags.BPF_ANY && flags != MapFlags.BPF_EXIST || def.hasSpinLock()) {
            return super.programUpdate(keyAddress, valueAddress, flags);
        }
        checkOpen();
        int i = NativeMemory.getInt(keyAddress);
        if (!inRange(i)) return -Errno.E2BIG;
        NativeMemory.copy(valueAddress, thisCpuSlot(i), def.valueSize());
        return 0;
    }

    @Override protected long valueAddress(byte[] key, boolean fromProgram) {
        int i = ArrayKeys.u32(key);
        return inRange(i) ? thisCpuSlot(i) : 0;
    }

    @Override protected byte[] read(byte[] key) { return read(key, false); }

    @Override protected byte[] read(byte[] key, boolean locked) {
        int i = ArrayKeys.u32(key);
        if (!inRange(i)) return null;
        if (cpus == 1) {
            byte[] out = new byte[def.valueSize()];
            if (locked) SpinLock.copyOutLocked(slot(i, 0), out, 0, def.valueSize(), def.spinLockOffset());
            else SpinLock.copyOut(slot(i, 0), out, 0, def.valueSize(), def.spinLockOffset());
            return out;
        }
        byte[] out = new byte[stride * cpus];
        for (int c = 0; c < cpus; c++) NativeMemory.read(slot(i, c), out, c * stride, def.valueSize());
        return out;
    }

    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) {
        // arraymap.c: unknown flags -EINVAL; index past the end -E2BIG; BPF_NOEXIST -EEXIST (all exist);
        // BPF_F_LOCK needs a bpf_spin_lock in the value (-EINVAL without) and copies under it. A program's
        // update takes array_map_update_elem for per-CPU arrays too; only the Java side's
        // bpf_percpu_array_update counts BPF_F_LOCK as unknown.
        long unknown = cpus == 1 || !allCpus ? flags & ~MapFlags.BPF_F_LOCK : flags;
        if (Long.compareUnsigned(unknown, MapFlags.BPF_EXIST) > 0) return -Errno.EINVAL;
        int i = ArrayKeys.u32(key);
        if (!inRange(i)) return -Errno.E2BIG;
        if ((flags & MapFlags.BPF_NOEXIST) != 0) return -Errno.EEXIST;
        if ((flags & MapFlags.BPF_F_LOCK) != 0) {
            if (!def.hasSpinLock()) return -Errno.EINVAL;
            SpinLock.copyInLocked(slot(i, 0), value, 0, def.valueSize(), def.spinLockOffset());
            return 0;
        }
        if (cpus == 1) {
            SpinLock.copyIn(slot(i, 0), value, 0, def.valueSize(), def.spinLockOffset());
        } else if (!allCpus) {
            NativeMemory.write(slot(i, Cpus.current()), value, 0, def.valueSize());
        } else {
            for (int c = 0; c < cpus; c++) NativeMemory.write(slot(i, c), value, c * stride, def.valueSize());
        }
        return 0;
    }

    @Override protected int remove(byte[] key) { return -Errno.EINVAL; }

    @Override protected int next(byte[] key, byte[] out) { return ArrayKeys.next(def.maxEntries(), key, out); }

    @Override protected void free() {
        openWord.close(); // before the values go
        arena.free();
    }
}
