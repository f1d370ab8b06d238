package dev.bpf4j.kernel;

import dev.bpf4j.runtime.NativeMemory;

import java.nio.charset.StandardCharsets;

/**
 * A zeroed block of native memory handed to the kernel (an attr union, a key, a log buffer). The
 * kernel reads and writes user memory by address, so everything it sees must live off-heap.
 */
final class OffHeap implements AutoCloseable {
    private final long address;
    private final int size;
    private boolean freed;

    private OffHeap(int size) {
        if (size < 0) throw new IllegalArgumentException("negative size " + size);
        this.size = size;
        this.address = NativeMemory.allocate(Math.max(size, 1));
    }

    static OffHeap allocate(int size) { return new OffHeap(size); }

    static OffHeap of(byte[] bytes) {
        OffHeap m = new OffHeap(bytes.length);
        NativeMemory.write(m.address, bytes, 0, bytes.length);
        return m;
    }

    /** A NUL-terminated copy of {@code s} (license, names, paths). */
    static OffHeap cString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        OffHeap m = new OffHeap(b.length + 1);
        NativeMemory.write(m.address, b, 0, b.length);
        return m;
    }

    long address() { return address; }
    int size() { return size; }

    void putInt(int off, int v) { check(off, 4); NativeMemory.putInt(address + off, v); }
    void putLong(int off, long v) { check(off, 8); NativeMemory.putLong(address + off, v); }
    int getInt(int off) { check(off, 4); return NativeMemory.getInt(address + off); }
    long getLong(int off) { check(off, 8); return NativeMemory.getLong(address + off); }

    void putBytes(int off, byte[] b) { check(off, b.length); NativeMemory.write(address + off, b, 0, b.length); }

    byte[] bytes(int off, int len) { check(off, len); return NativeMemory.read(address + off, len); }

    /** The NUL-terminated string at the start of this block (a verifier log). */
    String cString() {
        int n = 0;
        while (n < size && NativeMemory.getByte(address + n) != 0) n++;
        return new String(bytes(0, n), StandardCharsets.UTF_8);
    }

    private void check(int off, int len) {
        if (off < 0 || len < 0 || off + len > size) {
            throw new IndexOutOfBoundsException("[" + off + ", " + (off + len) + ") outside a " + size + "-byte block");
        }
    }

    @Override public void close() {
        if (!freed) {
            freed = true;
            NativeMemory.free(address);
        }
    }
}
