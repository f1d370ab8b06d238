package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.util.Optional;

/**
 * {@code BPF_MAP_TYPE_QUEUE} (FIFO) and {@code BPF_MAP_TYPE_STACK} (LIFO), {@code kernel/bpf/queue_stack_maps.c}:
 * a ring of {@code max_entries + 1} values with head and tail indexes under one lock. No keys: push/pop/
 * peek are the operations; the Java {@link #lookup}/{@link #update}/{@link #lookupAndDelete} with an
 * empty key are peek/push/pop (as the syscall), delete and get_next_key are {@code -EINVAL}. Values are copied in and
 * out, so programs never hold pointers into this map and it exposes no region.
 */
public final class QueueStackMap extends BpfMap {
    private final NativeArena arena;
    private final int size; // max_entries + 1
    private final boolean stack;
    private int head, tail;

    public QueueStackMap(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type() == MapType.QUEUE || def.type() == MapType.STACK, "not a queue/stack map type");
        CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 0 && def.valueSize() != 0,
                "queue/stack maps need key_size 0, value_size > 0 and max_entries > 0");
        CreateChecks.flags(def, CreateChecks.QUEUE_STACK_MASK);
        if (Integer.toUnsignedLong(def.valueSize()) > CreateChecks.KMALLOC_MAX_SIZE) {
            throw CreateChecks.fail(def, Errno.E2BIG, "value_size too large");
        }
        if (Integer.toUnsignedLong(def.maxEntries()) >= Integer.MAX_VALUE) {
            throw CreateChecks.fail(def, Errno.ENOMEM, "max_entries too large");
        }
        this.stack = def.type() == MapType.STACK;
        this.size = def.maxEntries() + 1;
        this.arena = new NativeArena(CreateChecks.arenaBytes(def, size, def.valueSize()));
    }

    private long element(int i) { return arena.base() + (long) i * def.valueSize(); }

    private boolean isEmpty() { return head == tail; }

    private boolean isFull() { return (head + 1 >= size ? 0 : head + 1) == tail; }

    /**
     * {@code bpf_map_push_elem}: {@code -E2BIG} when full unless {@code BPF_EXIST}, which drops the
     * oldest element to make room; {@code BPF_NOEXIST} or unknown flags are {@code -EINVAL}.
     */
    public synchronized int push(byte[] value, long flags) {
        checkOpen();
        if ((flags & MapFlags.BPF_NOEXIST) != 0 || Long.compareUnsigned(flags, MapFlags.BPF_EXIST) > 0) return -Errno.EINVAL;
        if (isFull()) {
            if ((flags & MapFlags.BPF_EXIST) == 0) return -Errno.E2BIG;
            if (++tail >= size) tail = 0; // overwrite the oldest element
        }
        NativeMemory.write(element(head), value, 0, def.valueSize());
        if (++head >= size) head = 0;
        return 0;
    }

    /** {@code bpf_map_pop_elem} ({@code delete}) / {@code bpf_map_peek_elem} into {@code out}; {@code -ENOENT} (zeroed out) when empty. */
    public synchronized int get(byte[] out, boolean delete) {
        checkOpen();
        if (isEmpty()) {
            java.util.Arrays.fill(out, 0, def.valueSize(), (byte) 0);
            return -Errno.ENOENT;
        }
        int i;
        if (stack) {
            i = head - 1;
            if (i < 0) i = size - 1;
            if (delete) head = i;
        } else {
            i = tail;
            if (delete && ++tail >= size) tail = 0;
        }
        NativeMemory.read(element(i), out, 0, def.valueSize());
        return 0;
    }

    /** Java push; throws {@link BpfMapException} ({@code E2BIG} when full, {@code EINVAL} for bad flags). */
    public void pushValue(byte[] value, long flags) {
        if (value == null || value.length != def.valueSize()) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": value must be " + def.valueSize() + " bytes");
        }
        BpfMapException.check(push(value, flags), this, "push");
    }

    /** Java pop: the next value (queue: oldest, stack: newest), or empty. */
    public Optional<byte[]> pop() { return take(true); }

    /** Java peek: like {@link #pop()} without removing. */
    public Optional<byte[]> peek() { return take(false); }

    private Optional<byte[]> take(boolean delete) {
        byte[] out = new byte[def.valueSize()];
        return get(out, delete) == 0 ? Optional.of(out) : Optional.empty();
    }

    /** Number of queued values. */
    public synchronized int size() { return head >= tail ? head - tail : head + size - tail; }

    // The syscall side maps keyless lookup/update/lookup_and_delete to peek/push/pop, as syscall.c does.
    @Override protected byte[] read(byte[] key) { return peek().orElse(null); }

    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) { return push(value, flags); }

    @Override protected int readAndRemove(byte[] key, byte[] out) { return get(out, true); }

    @Override public int programUpdate(long keyAddress, long valueAddress, long flags) { return -Errno.EINVAL; }

    @Override public int programDelete(long keyAddress) { return -Errno.EINVAL; }

    @Override public long programLookup(long keyAddress) { return 0; }

    @Override protected void free() { arena.free(); }
}
