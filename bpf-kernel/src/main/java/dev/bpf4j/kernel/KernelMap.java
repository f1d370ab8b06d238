package dev.bpf4j.kernel;

/**
 * A map living in the kernel, owned through its fd. Keys and values are raw bytes of exactly
 * {@code keySize} / {@code valueSize}.
 */
public final class KernelMap implements AutoCloseable {
    private final int fd;
    private final int keySize;
    private final int valueSize;
    private boolean closed;

    private KernelMap(int fd, int keySize, int valueSize) {
        this.fd = fd;
        this.keySize = keySize;
        this.valueSize = valueSize;
    }

    public static KernelMap create(int mapType, int keySize, int valueSize, int maxEntries, int flags, String name) {
        return new KernelMap(BpfSyscall.mapCreate(mapType, keySize, valueSize, maxEntries, flags, name), keySize, valueSize);
    }

    /** An array map of {@code maxEntries} values of {@code valueSize} bytes, keys are u32 indexes. */
    public static KernelMap array(String name, int valueSize, int maxEntries, int flags) {
        return create(BpfSyscall.BPF_MAP_TYPE_ARRAY, 4, valueSize, maxEntries, flags, name);
    }

    public int fd() { return fd; }
    public int keySize() { return keySize; }
    public int valueSize() { return valueSize; }

    public byte[] lookup(byte[] key) { return BpfSyscall.mapLookup(fd, checkKey(key), valueSize); }

    public void update(byte[] key, byte[] value, long flags) {
        if (value.length != valueSize) throw new IllegalArgumentException("value is " + value.length + " bytes, the map's values are " + valueSize);
        BpfSyscall.mapUpdate(fd, checkKey(key), value, flags);
    }

    public boolean delete(byte[] key) { return BpfSyscall.mapDelete(fd, checkKey(key)); }

    /** The key after {@code key}; the first key when {@code key} is null; null at the end. */
    public byte[] nextKey(byte[] key) { return BpfSyscall.mapGetNextKey(fd, key == null ? null : checkKey(key), keySize); }

    /** The u32 key of array index {@code i}. */
    public static byte[] index(int i) { return new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16), (byte) (i >> 24)}; }

    private byte[] checkKey(byte[] key) {
        if (key.length != keySize) throw new IllegalArgumentException("key is " + key.length + " bytes, the map's keys are " + keySize);
        return key;
    }

    @Override public void close() {
        if (!closed) {
            closed = true;
            BpfSyscall.close(fd);
        }
    }
}
