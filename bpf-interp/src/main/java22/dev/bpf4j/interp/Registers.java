package dev.bpf4j.interp;

/**
 * Reads and writes of the dispatch loop's two hot arrays, the register file and the decoded code:
 * the JDK 22+ implementation, picked by the multi-release jar (docs/jdk.md). The one under
 * src/main/java reads them through {@code sun.misc.Unsafe} without bounds checks; Unsafe's
 * memory-access methods, the on-heap ones too, are terminally deprecated (JEP 471) and warn from
 * JDK 24, and nothing that replaces them skips the bounds check, so this one indexes the arrays as
 * Java does. The bounds hold by construction all the same (16 register slots and 4-bit register
 * fields; the {@link Decoder} proves every reachable pc inside the code array), so a check never
 * fails; what it costs is measured in docs/jdk.md.
 */
final class Registers {
    private Registers() {}

    /** Slots of a register file: r0-r10, the memory windows and the budget, so that any 4-bit field is in bounds. */
    static final int SLOTS = 16;
    /** The memory windows of {@link Machine}, past r10 (see the JDK 17 implementation). */
    static final int READ_LO = 11, READ_LEN = 12, WRITE_LO = 13, WRITE_LEN = 14;
    /** The budget passes in and out of {@link HotLoop#run} here, so that it needs no Machine. */
    static final int BUDGET = 15;

    /** The register whose number sits in bits {@code 8..11} of the word {@code w} (the dst field). */
    static long dst(long[] r, long w) { return r[(int) (w >>> 8) & 0xf]; }

    /** The register whose number sits in bits {@code 12..15} of {@code w} (the src field). */
    static long src(long[] r, long w) { return r[(int) (w >>> 12) & 0xf]; }

    /** A fused pair's third register Z ({@code rX = rY op rZ}): the src of its second slot's own word. */
    static long third(long[] r, long[] code, long pc) { return src(r, next(code, pc)); }

    static void setDst(long[] r, long w, long v) { r[(int) (w >>> 8) & 0xf] = v; }

    /** Slot {@code i} (below {@link #SLOTS}, a constant). */
    static long slot(long[] r, int i) { return r[i]; }

    static void setSlot(long[] r, int i, long v) { r[i] = v; }

    /** {@code code[pc + 1]}: the second slot of a fused pair. */
    static long next(long[] code, long pc) { return code[(int) pc + 1]; }

    /** {@code (int) (code[pc] >> 32)}, the word's imm, sign-extended. */
    static long imm(long[] code, long pc) { return (int) (code[(int) pc] >> 32); }

    /** {@code code[pc]} for a pc the decoder proved in bounds. */
    static long word(long[] code, long pc) { return code[(int) pc]; }
}
