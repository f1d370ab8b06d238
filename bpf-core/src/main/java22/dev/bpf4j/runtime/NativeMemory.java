package dev.bpf4j.runtime;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The one door to off-heap memory (DESIGN.md "Memory model"), JDK 22+ implementation: the Foreign
 * Function & Memory API instead of {@code sun.misc.Unsafe}, whose memory-access methods are
 * terminally deprecated (JEP 471) and warn from JDK 24 (JEP 498). The multi-release jar picks this
 * class on JDK 22 and later (docs/jdk.md); the one under src/main/java is the JDK 17-21 one, and
 * both have the same public surface.
 *
 * <p>BPF pointers are real native addresses: {@link #ALL} is one segment over the whole address
 * space, so an address is its own offset. Callers check bounds before they come here, because a
 * wrong address is a JVM crash. Plain accesses are unaligned, in native (little-endian) order, as
 * with Unsafe; atomics use aligned layouts, as BPF_ATOMIC requires.
 */
public final class NativeMemory {
    private NativeMemory() {}

    /** All of memory, from address 0: a restricted method, hence Enable-Native-Access (docs/jdk.md). */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private static final MethodHandle CALLOC, FREE;
    static {
        Linker linker = Linker.nativeLinker();
        CALLOC = linker.downcallHandle(linker.defaultLookup().find("calloc").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
        FREE = linker.downcallHandle(linker.defaultLookup().find("free").orElseThrow(),
                FunctionDescriptor.ofVoid(JAVA_LONG));
    }

    public static long allocate(long bytes) {
        long a;
        try {
            a = (long) CALLOC.invokeExact(1L, Math.max(1, bytes));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (a == 0) throw new OutOfMemoryError("calloc of " + bytes + " bytes failed");
        return a;
    }

    public static void free(long address) {
        if (address == 0) return;
        try {
            FREE.invokeExact(address);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public static byte getByte(long a) { return ALL.get(JAVA_BYTE, a); }
    public static short getShort(long a) { return ALL.get(JAVA_SHORT_UNALIGNED, a); }
    public static int getInt(long a) { return ALL.get(JAVA_INT_UNALIGNED, a); }
    public static long getLong(long a) { return ALL.get(JAVA_LONG_UNALIGNED, a); }
    public static void putByte(long a, byte v) { ALL.set(JAVA_BYTE, a, v); }
    public static void putShort(long a, short v) { ALL.set(JAVA_SHORT_UNALIGNED, a, v); }
    public static void putInt(long a, int v) { ALL.set(JAVA_INT_UNALIGNED, a, v); }
    public static void putLong(long a, long v) { ALL.set(JAVA_LONG_UNALIGNED, a, v); }

    /** Zero-extended load of 1, 2, 4 or 8 bytes. */
    public static long load(long a, int size) {
        switch (size) {
            case 1: return getByte(a) & 0xffL;
            case 2: return getShort(a) & 0xffffL;
            case 4: return getInt(a) & 0xffffffffL;
            default: return getLong(a);
        }
    }

    /** Store of the low 1, 2, 4 or 8 bytes of {@code v}. */
    public static void store(long a, int size, long v) {
        switch (size) {
            case 1: putByte(a, (byte) v); break;
            case 2: putShort(a, (short) v); break;
            case 4: putInt(a, (int) v); break;
            default: putLong(a, v);
        }
    }

    public static void setMemory(long a, long bytes, byte value) {
        if (bytes > 0) ALL.asSlice(a, bytes).fill(value);
    }

    /** Copies as if through a buffer, so overlapping ranges are fine (as Unsafe.copyMemory). */
    public static void copy(long from, long to, long bytes) {
        if (bytes > 0) MemorySegment.copy(ALL, from, ALL, to, bytes);
    }

    public static void write(long a, byte[] src, int off, int len) {
        MemorySegment.copy(src, off, ALL, JAVA_BYTE, a, len);
    }

    public static void read(long a, byte[] dst, int off, int len) {
        MemorySegment.copy(ALL, JAVA_BYTE, a, dst, off, len);
    }

    /** True when the {@code len} bytes at {@code a} are {@code b[0, len)}. */
    public static boolean equals(long a, byte[] b, int len) {
        return MemorySegment.mismatch(ALL, a, a + len, MemorySegment.ofArray(b), 0, len) == -1;
    }

    /** True when the {@code len} bytes at {@code a} and at {@code b} are the same. */
    public static boolean equals(long a, long b, int len) {
        return MemorySegment.mismatch(ALL, a, a + len, ALL, b, b + len) == -1;
    }

    public static byte[] read(long a, int len) {
        byte[] b = new byte[len];
        read(a, b, 0, len);
        return b;
    }

    // Atomics on native memory: the lock-prefixed semantics of BPF_ATOMIC.
    public static int getAndAddInt(long a, int d) { return (int) INT.getAndAdd(ALL, a, d); }
    public static long getAndAddLong(long a, long d) { return (long) LONG.getAndAdd(ALL, a, d); }
    public static int getAndSetInt(long a, int v) { return (int) INT.getAndSet(ALL, a, v); }
    public static long getAndSetLong(long a, long v) { return (long) LONG.getAndSet(ALL, a, v); }
    public static boolean casInt(long a, int expect, int update) { return INT.compareAndSet(ALL, a, expect, update); }
    public static boolean casLong(long a, long expect, long update) { return LONG.compareAndSet(ALL, a, expect, update); }
    /** A store no earlier store passes: how a writer publishes to native readers that take no lock. */
    public static void putIntRelease(long a, int v) { INT.setRelease(ALL, a, v); }
    public static int getIntVolatile(long a) { return (int) INT.getVolatile(ALL, a); }
    public static void putIntVolatile(long a, int v) { INT.setVolatile(ALL, a, v); }
    public static long getLongVolatile(long a) { return (long) LONG.getVolatile(ALL, a); }
}
