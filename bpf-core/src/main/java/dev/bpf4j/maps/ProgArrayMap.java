package dev.bpf4j.maps;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@code BPF_MAP_TYPE_PROG_ARRAY}: {@code max_entries} slots, each holding a program reference for tail
 * calls. The slot content is opaque here (engines store their executable); updates from user space take
 * the place of the kernel's program fd. Programs cannot look up or update it (the kernel verifier allows
 * only {@code bpf_tail_call}), so it has no value region.
 */
public final class ProgArrayMap extends BpfMap {
    private final AtomicReferenceArray<Object> slots;

    public ProgArrayMap(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type() == MapType.PROG_ARRAY, "not a prog array");
        CreateChecks.flags(def, CreateChecks.ARRAY_MASK & ~MapFlags.BPF_F_MMAPABLE);
        CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4 && def.valueSize() == 4,
                "prog arrays need key_size 4, value_size 4 and max_entries > 0");
        if (Integer.toUnsignedLong(def.maxEntries()) > 1 << 24) throw CreateChecks.fail(def, Errno.E2BIG, "max_entries too large");
        this.slots = new AtomicReferenceArray<>(def.maxEntries());
    }

    private boolean inRange(int index) { return ArrayKeys.inRange(index, def.maxEntries()); }

    /** Installs {@code program} at {@code index}: {@code -EINVAL} unless {@code BPF_ANY}, {@code -E2BIG} past the end. */
    public void set(int index, Object program, long flags) {
        checkOpen();
        if (program == null) throw new BpfMapException(Errno.EINVAL, describe() + ": null program (use clear)");
        if (flags != MapFlags.BPF_ANY) throw new BpfMapException(Errno.EINVAL, describe() + ": prog array updates take BPF_ANY only");
        if (!inRange(index)) throw new BpfMapException(Errno.E2BIG, describe() + ": index " + Integer.toUnsignedString(index) + " out of range");
        slots.set(index, program);
    }

    /** Removes the program at {@code index}: {@code -ENOENT} when empty, {@code -E2BIG} past the end. */
    public void clear(int index) {
        checkOpen();
        if (!inRange(index)) throw new BpfMapException(Errno.E2BIG, describe() + ": index " + Integer.toUnsignedString(index) + " out of range");
        if (slots.getAndSet(index, null) == null) throw new BpfMapException(Errno.ENOENT, describe() + ": slot " + index + " is empty");
    }

    /** The program at {@code index} for a tail call, or null (empty or out of range: the tail call falls through). */
    public Object program(int index) {
        return inRange(index) ? slots.get(index) : null;
    }

    public Optional<Object> get(int index) { return Optional.ofNullable(program(index)); }

    @Override protected byte[] read(byte[] key) { throw unsupported("lookup of program references (use program(index))"); }

    @Override protected int next(byte[] key, byte[] out) { return ArrayKeys.next(def.maxEntries(), key, out); }

    @Override protected int remove(byte[] key) {
        int i = ArrayKeys.u32(key);
        if (!inRange(i)) return -Errno.E2BIG;
        return slots.getAndSet(i, null) == null ? -Errno.ENOENT : 0;
    }


    @Override public long programLookup(long keyAddress) { return 0; }

    @Override protected void free() {
        for (int i = 0; i < slots.length(); i++) slots.set(i, null);
    }
}
