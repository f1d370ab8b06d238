package dev.bpf4j.interp;

import dev.bpf4j.runtime.TheUnsafe;
import sun.misc.Unsafe;

/**
 * Reads and writes of the dispatch loop's two hot arrays, the register file and the decoded code:
 * the JDK 22+ implementation, picked by the multi-release jar (docs/jdk.md). The one under
 * src/main/java reads them through {@code sun.misc.Unsafe} without bounds checks. Unsafe's
 * memory-access methods, the on-heap ones too, are terminally deprecated (JEP 471) and warn from
 * JDK 24 (JEP 498), and nothing that replaces them skips the bounds check. So this one reads them
 * through Unsafe only where the JVM allows it without a warning ({@link #UNCHECKED}: the launcher's
 * choice, not a library's), and indexes the arrays as Java does otherwise. The flag is a constant
 * to C2, so a run pays for one of the two paths only. The bounds hold by construction either way
 * (16 register slots and 4-bit register fields; the {@link Decoder} proves every reachable pc
 * inside the code array), so a check never fails; what it costs is measured in docs/jdk.md.
 */
final class Registers {
    private Registers() {}

    /** Slots of a register file: r0-r10, the memory windows and the budget, so that any 4-bit field is in bounds. */
    static final int SLOTS = 16;
    /** The memory windows of {@link Machine}, past r10 (see the JDK 17 implementation). */
    static final int READ_LO = 11, READ_LEN = 12, WRITE_LO = 13, WRITE_LEN = 14;
    /** The budget passes in and out of {@link HotLoop#run} here, so that it needs no Machine. */
    static final int BUDGET = 15;

    /**
     * The JVM allows Unsafe's memory access without a warning: {@code --sun-misc-unsafe-memory-access=allow}
     * (which the JVM reports as this property), or no such option on JDK 22 and 23, which do not warn.
     */
    static final boolean UNCHECKED = unsafeAllowed(System.getProperty("sun.misc.unsafe.memory.access"), Runtime.version().feature());

    static boolean unsafeAllowed(String option, int feature) {
        return option == null ? feature < 24 : option.equals("allow");
    }

    /** Loaded only when {@link #UNCHECKED}: Unsafe's offset methods are memory-access methods too, and warn. */
    private static final class Raw {
        static final Unsafe U = TheUnsafe.get();
        static final long BASE;
        static {
            BASE = U.arrayBaseOffset(long[].class);
            if (U.arrayIndexScale(long[].class) != 8) throw new ExceptionInInitializerError("long[] scale is not 8");
        }
        /** x86-64 and aarch64 are little-endian: a word's imm is its high half, 4 bytes in. */
        static final long IMM_OFFSET = 4;
    }

    /** The register whose number sits in bits {@code 8..11} of the word {@code w} (the dst field). */
    static long dst(long[] r, long w) {
        return UNCHECKED ? Raw.U.getLong(r, Raw.BASE + ((w >>> 5) & 0x78)) : r[(int) (w >>> 8) & 0xf];
    }

    /** The register whose number sits in bits {@code 12..15} of {@code w} (the src field). */
    static long src(long[] r, long w) {
        return UNCHECKED ? Raw.U.getLong(r, Raw.BASE + ((w >>> 9) & 0x78)) : r[(int) (w >>> 12) & 0xf];
    }

    /** A fused pair's third register Z ({@code rX = rY op rZ}): the src of its second slot's own word. */
    static long third(long[] r, long[] code, long pc) { return src(r, next(code, pc)); }

    static void setDst(long[] r, long w, long v) {
        if (UNCHECKED) Raw.U.putLong(r, Raw.BASE + ((w >>> 5) & 0x78), v);
        else r[(int) (w >>> 8) & 0xf] = v;
    }

    /** Slot {@code i} (below {@link #SLOTS}, a constant). */
    static long slot(long[] r, int i) { return r[i]; }

    static void setSlot(long[] r, int i, long v) { r[i] = v; }

    /** {@code code[pc + 1]}: the second slot of a fused pair. */
    static long next(long[] code, long pc) {
        return UNCHECKED ? Raw.U.getLong(code, Raw.BASE + 8 + (pc << 3)) : code[(int) pc + 1];
    }

    /** {@code (int) (code[pc] >> 32)}, the word's imm, sign-extended. */
    static long imm(long[] code, long pc) {
        return UNCHECKED ? Raw.U.getInt(code, Raw.BASE + Raw.IMM_OFFSET + (pc << 3)) : (int) (code[(int) pc] >> 32);
    }

    /** {@code code[pc]} for a pc the decoder proved in bounds. */
    static long word(long[] code, long pc) {
        return UNCHECKED ? Raw.U.getLong(code, Raw.BASE + (pc << 3)) : code[(int) pc];
    }
}
