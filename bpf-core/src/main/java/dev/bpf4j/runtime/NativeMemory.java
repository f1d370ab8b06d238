package dev.bpf4j.runtime;

import sun.misc.Unsafe;

/**
 * The one door to off-heap memory (DESIGN.md "Memory model"). BPF pointers are real native
 * addresses; callers check bounds before they come here, because a wrong address is a JVM crash.
 * All accesses are little-endian, as x86-64 is.
 */
public final class NativeMemory {
    private NativeMemory() {}

    private static final Unsafe U = TheUnsafe.get();

    public static long allocate(long bytes) {
        long a = U.allocateMemory(Math.max(1, bytes));
        U.setMemory(a, Math.max(1, bytes), (byte) 0);
        return a;
    }

    public static void free(long address) { if (address != 0) U.freeMemory(address); }

    public static byte getByte(long a) { return U.getByte(a); }
    public static short getShort(long a) { return U.getShort(a); }
    public static int getInt(long a) { return U.getInt(a); }
    public static long getLong(long a) { return U.getLong(a); }
    public static void putByte(long a, byte v) { U.putByte(a, v); }
    public static void putShort(long a, short v) { U.putShort(a, v); }
    public static void putInt(long a, int v) { U.putInt(a, v); }
    public static void putLong(long a, long v) { U.putLong(a, v); }

    /** Zero-extended load of 1, 2, 4 or 8 bytes. */
    public static long load(long a, int size) {
        switch (size) {
            case 1: return U.getByte(a) & 0xffL;
            case 2: return U.getShort(a) & 0xffffL;
            case 4: return U.getInt(a) & 0xffffffffL;
            default: return U.getLong(a);
        }
    }

    /** Store of the low 1, 2, 4 or 8 bytes of {@code v}. */
    public static void store(long a, int size, long v) {
        switch (size) {
            case 1: U.putByte(a, (byte) v); break;
            case 2: U.putShort(a, (short) v); break;
            case 4: U.putInt(a, (int) v); break;
            default: U.putLong(a, v);
        }
    }

    public static void setMemory(long a, long bytes, byte value) { U.setMemory(a, bytes, value); }
    public static void copy(long from, long to, long bytes) { U.copyMemory(from, to, bytes); }

    public static void write(long a, byte[] src, int off, int len) {
        U.copyMemory(src, Unsafe.ARRAY_BYTE_BASE_OFFSET + off, null, a, len);
    }

    public static void read(long a, byte[] dst, int off, int len) {
        U.copyMemory(null, a, dst, Unsafe.ARRAY_BYTE_BASE_OFFSET + off, len);
    }

    /** True when the {@code len} bytes at {@code a} are {@code b[0, len)}. */
    public static boolean equals(long a, byte[] b, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            if (U.getLong(a + i) != U.getLong(b, Unsafe.ARRAY_BYTE_BASE_OFFSET + i)) return false;
        }
        for (; i < len; i++) if (U.getByte(a + i) != b[i]) return false;
        return true;
    }

    /** True when the {@code len} bytes at {@code a} and at {@code b} are the same. */
    public static boolean equals(long a, long b, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) if (U.getLong(a + i) != U.getLong(b + i)) return false;
        for (; i < len; i++) if (U.getByte(a + i) != U.getByte(b + i)) return false;
        return true;
    }

    public static byte[] read(long a, int len) {
        byte[] b = new byte[len];
        read(a, b, 0, len);
        return b;
    }

    // Atomics on native memory: the lock-prefixed semantics of BPF_ATOMIC.
    public static int getAndAddInt(long a, int d) { return U.getAndAddInt(null, a, d); }
    public static long getAndAddLong(long a, long d) { return U.getAndAddLong(null, a, d); }
    public static int getAndSetInt(long a, int v) { return U.getAndSetInt(null, a, v); }
    public static long getAndSetLong(long a, long v) { return U.getAndSetLong(null, a, v); }
    public static boolean casInt(long a, int expect, int update) { return U.compareAndSwapInt(null, a, expect, update); }
    public static boolean casLong(long a, long expect, long update) { return U.compareAndSwapLong(null, a, expect, update); }
    /** A store no earlier store passes: how a writer publishes to native readers that take no lock. */
    public static void putIntRelease(long a, int v) { U.putOrderedInt(null, a, v); }
    public static int getIntVolatile(long a) { return U.getIntVolatile(null, a); }
    public static void putIntVolatile(long a, int v) { U.putIntVolatile(null, a, v); }
    public static long getLongVolatile(long a) { return U.getLongVolatile(null, a); }
}
