package dev.bpf4j.maps;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * A live BPF map. Two faces:
 * <ul>
 * <li>the Java (syscall) side — {@link #lookup}, {@link #update}, {@link #delete}, {@link #nextKey},
 * {@link #lookupAndDelete}, {@link #keys()} — which copies keys and values and throws
 * {@link BpfMapException} with the kernel's errno;</li>
 * <li>the program side used by helpers — {@link #programLookup}, {@link #programUpdate},
 * {@link #programDelete} — which takes native addresses the helper has already checked and returns
 * the kernel helper's result (a value pointer, 0 or a negative errno).</li>
 * </ul>
 * Values live off-heap at stable addresses (preallocated, never moved) until {@link #close()}, which
 * frees them: close a map only when no program that uses it is running.
 */
public abstract class BpfMap implements AutoCloseable {
    protected final MapDefinition def;
    private volatile boolean closed;
    private volatile boolean frozen;
    private int id;

    protected BpfMap(MapDefinition def) { this.def = def; }

    public MapDefinition definition() { return def; }
    public String name() { return def.name(); }
    public MapType type() { return def.type(); }
    public int keySize() { return def.keySize(); }
    public int valueSize() { return def.valueSize(); }
    public int maxEntries() { return def.maxEntries(); }

    /** {@code map 'name' (TYPE)}, for messages. */
    public String describe() { return "map '" + def.name() + "' (" + def.type() + ")"; }

    public boolean isOpen() { return !closed; }

    /**
     * The map's id (process-wide, never reused, assigned on first call), as {@code bpf_map_info.id}: what a
     * map-in-map's value holds, and what {@link Maps#byId} finds while the map is open.
     */
    public final synchronized int id() {
        checkOpen();
        if (id == 0) id = MapIds.register(this);
        return id;
    }

    /**
     * {@code BPF_MAP_FREEZE}: from now on the Java side may not write ({@code -EPERM}); programs still
     * may unless the map is {@code BPF_F_RDONLY_PROG}. libbpf freezes {@code .rodata} after filling it.
     * Freezing needs write access, so a {@code BPF_F_RDONLY} or already frozen map is {@code -EPERM}, as in
     * the kernel's map_freeze.
     */
    public synchronized void freeze() {
        checkOpen();
        checkAccess(false, true, "freeze");
        frozen = true;
    }

    public boolean isFrozen() { return frozen; }

    /** The syscall side's permission check (map_get_sys_perms): BPF_F_RDONLY / BPF_F_WRONLY / frozen. */
    private void checkAccess(boolean read, boolean write, String op) {
        if (read && (def.flags() & MapFlags.BPF_F_WRONLY) != 0) {
            throw new BpfMapException(Errno.EPERM, describe() + ": " + op + " needs read access, the map is BPF_F_WRONLY");
        }
        if (write && ((def.flags() & MapFlags.BPF_F_RDONLY) != 0 || frozen)) {
            throw new BpfMapException(Errno.EPERM, describe() + ": " + op + " needs write access, the map is "
                    + (frozen ? "frozen" : "BPF_F_RDONLY"));
        }
    }

    /** The native memory programs may touch: value arenas (read-only with {@code BPF_F_RDONLY_PROG}). */
    public List<MemoryRegion> regions() { return List.of(); }

    /** Size of one Java-side value: {@code value_size}, or {@code round_up(value_size, 8) * possible CPUs} for per-CPU maps. */
    public int javaValueSize() { return def.type().isPercpu() ? def.valueStride() * Cpus.possible() : def.valueSize(); }

    // ---- Java (syscall) side -------------------------------------------------------------------

    /** A copy of the value under {@code key} (per-CPU maps: every possible CPU's value), or empty. */
    public Optional<byte[]> lookup(byte[] key) { return lookup(key, 0); }

    /** Lookup with {@code BPF_F_LOCK}: the value is copied under its {@code bpf_spin_lock}. */
    public Optional<byte[]> lookup(byte[] key, long flags) {
        checkOpen();
        checkAccess(true, false, "lookup");
        checkKey(key);
        if ((flags & ~MapFlags.BPF_F_LOCK) != 0 || ((flags & MapFlags.BPF_F_LOCK) != 0 && !def.hasSpinLock())) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": lookup flags 0x" + Long.toHexString(flags)
                    + (def.hasSpinLock() ? " (only BPF_F_LOCK)" : " (BPF_F_LOCK needs a bpf_spin_lock in the value)"));
        }
        return Optional.ofNullable(read(key, (flags & MapFlags.BPF_F_LOCK) != 0));
    }

    /** Inserts or replaces the value under {@code key} as {@code BPF_MAP_UPDATE_ELEM} does with {@code flags}. */
    public void update(byte[] key, byte[] value, long flags) {
        checkOpen();
        checkAccess(false, true, "update");
        checkKey(key);
        if (value == null || value.length != javaValueSize()) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": value must be " + javaValueSize() + " bytes, got "
                    + (value == null ? "null" : value.length));
        }
        // syscall.c refuses BPF_F_LOCK before the map sees it when the value has no bpf_spin_lock
        if ((flags & MapFlags.BPF_F_LOCK) != 0 && !def.hasSpinLock()) throw new BpfMapException(Errno.EINVAL, describe() + ": BPF_F_LOCK needs a bpf_spin_lock in the value");
        BpfMapException.check(write(key, value, flags, true), this, "update");
    }

    public void delete(byte[] key) {
        checkOpen();
        checkAccess(false, true, "delete");
        checkKey(key);
        BpfMapException.check(remove(key), this, "delete");
    }

    /** The key after {@code key} ({@code null}: the first key), or empty at the end ({@code -ENOENT}). */
    public Optional<byte[]> nextKey(byte[] key) {
        checkOpen();
        checkAccess(true, false, "get_next_key");
        if (key != null) checkKey(key);
        byte[] next = new byte[def.keySize()];
        int r = next(key, next);
        if (r == -Errno.ENOENT) return Optional.empty();
        BpfMapException.check(r, this, "get_next_key");
        return Optional.of(next);
    }

    /** Removes {@code key} and returns its value; {@code -ENOENT} when absent. */
    public byte[] lookupAndDelete(byte[] key) {
        checkOpen();
        checkAccess(true, true, "lookup_and_delete");
        checkKey(key);
        byte[] out = new byte[javaValueSize()];
        BpfMapException.check(readAndRemove(key, out), this, "lookup_and_delete");
        return out;
    }

    /** Every key, in {@link #nextKey} order (a live view: concurrent changes may or may not be seen). */
    public Iterable<byte[]> keys() {
        return () -> new Iterator<>() {
            private byte[] next = nextKey(null).orElse(null);

            @Override public boolean hasNext() { return next != null; }

            @Override public byte[] next() {
                if (next == null) throw new NoSuchElementException();
                byte[] k = next;
                next = nextKey(k).orElse(null);
                return k;
            }
        };
    }

    /** All keys as a list (snapshot by iteration). */
    public List<byte[]> keyList() {
        List<byte[]> out = new ArrayList<>();
        for (byte[] k : keys()) out.add(k);
        return out;
    }

    // ---- program side (helpers) ----------------------------------------------------------------

    /** {@code bpf_map_lookup_elem}: the address of the value (this CPU's for per-CPU maps) or 0. */
    public long programLookup(long keyAddress) {
        checkOpen();
        return valueAddress(NativeMemory.read(keyAddress, def.keySize()), true);
    }

    /**
     * {@code bpf_map_lookup_percpu_elem}: the address of CPU {@code cpu}'s value, or 0 when the key is
     * absent or {@code cpu} is not below the number of possible CPUs. Only per-CPU maps have it.
     */
    public long programLookupPercpu(long keyAddress, long cpu) {
        throw new UnsupportedOperationException(describe() + " is not a per-CPU map");
    }

    /** {@code bpf_map_update_elem}: 0 or a negative errno. Per-CPU maps update this CPU's value only. */
    public int programUpdate(long keyAddress, long valueAddress, long flags) {
        checkOpen();
        return write(NativeMemory.read(keyAddress, def.keySize()), NativeMemory.read(valueAddress, def.valueSize()),
                flags, false);
    }

    /** {@code bpf_map_delete_elem}: 0 or a negative errno. */
    public int programDelete(long keyAddress) {
        checkOpen();
        return remove(NativeMemory.read(keyAddress, def.keySize()));
    }

    /** True when {@code address} is the {@code bpf_spin_lock} word of one of this map's values. */
    public boolean isSpinLock(long address) { return false; }

    /** The lock words of this map's values, for a JIT's native {@code bpf_spin_lock}; null when it has none or programs may not write it. */
    public dev.bpf4j.runtime.LookupInlining.LockValues lockValues() { return null; }

    /** {@link #lockValues} of values of {@code stride} bytes laid out from {@code base} over {@code size} bytes. */
    protected final dev.bpf4j.runtime.LookupInlining.LockValues lockValues(long base, long size, int stride, long openWord) {
        int off = def.spinLockOffset();
        if (!def.hasSpinLock() || def.readOnlyForPrograms() || isClosed() || (off & 3) != 0 || off + 4 > stride) return null;
        return new dev.bpf4j.runtime.LookupInlining.LockValues(base, size, stride, def.spinLockOffset(), openWord);
    }

    /** {@link #isSpinLock} for values of {@code stride} bytes laid out from {@code base} over {@code size} bytes. */
    protected final boolean isSpinLock(long address, long base, long size, int stride) {
        if (!def.hasSpinLock() || isClosed() || address < base || address - base >= size) return false;
        return (address - base) % stride == def.spinLockOffset();
    }

    private boolean isClosed() { return closed; }

    // ---- per-type operations -------------------------------------------------------------------

    /** Address of the value for {@code key}, 0 when absent; {@code fromProgram} marks LRU references. */
    protected long valueAddress(byte[] key, boolean fromProgram) { return 0; }

    /** Java-side copy of the value, null when absent. */
    protected byte[] read(byte[] key) { throw unsupported("lookup"); }

    /** {@link #read(byte[])}, under the value's spin lock when {@code locked}. */
    protected byte[] read(byte[] key, boolean locked) { return read(key); }

    /** Update; {@code allCpus}: value holds every CPU's slot (Java side), else one value for this CPU. */
    protected int write(byte[] key, byte[] value, long flags, boolean allCpus) { return -Errno.EINVAL; }

    protected int remove(byte[] key) { return -Errno.EINVAL; }

    protected int next(byte[] key, byte[] out) { return -Errno.EINVAL; }

    protected int readAndRemove(byte[] key, byte[] out) { return -Errno.ENOTSUPP; } // syscall.c: only hash and queue/stack maps

    /** Frees native memory; called once by {@link #close()}. */
    protected abstract void free();

    @Override public final void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
            if (id != 0) MapIds.unregister(id);
        }
        free();
    }

    protected final void checkOpen() {
        if (closed) throw new IllegalStateException(describe() + " is closed");
    }

    protected final void checkKey(byte[] key) {
        if (key == null || key.length != def.keySize()) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": key must be " + def.keySize() + " bytes, got "
                    + (key == null ? "null" : key.length));
        }
    }

    protected final BpfMapException unsupported(String op) {
        return new BpfMapException(Errno.EINVAL, describe() + ": " + op + " is not supported by this map type");
    }

    /** {@code round_up(x, 8)}. */
    static long roundUp8(long x) { return (x + 7) & ~7L; }

    /** The region covering {@code [start, start + length)} with this map's program permissions. */
    protected final MemoryRegion region(String what, long start, long length) {
        return new MemoryRegion("map " + def.name() + " " + what, start, length, !def.readOnlyForPrograms());
    }
}
