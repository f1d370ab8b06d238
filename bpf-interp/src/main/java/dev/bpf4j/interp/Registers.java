package dev.bpf4j.interp;

import dev.bpf4j.runtime.TheUnsafe;
import sun.misc.Unsafe;

import java.nio.ByteOrder;

/**
 * Unchecked reads and writes of the dispatch loop's two hot arrays: the register file and the
 * decoded code. Java would bounds-check every {@code r[d]} and {@code code[pc]} (the JIT cannot
 * prove a 4-bit register number below an array's length); here the bounds hold by construction:
 * the register file has 16 slots and register numbers are 4-bit fields, and the {@link Decoder}
 * proves every pc the loop can reach inside the code array (jump and call targets are checked, a
 * {@link InsnCode#TRAP} slot ends the array and throws before the pc could pass it).
 */
final class Registers {
    private Registers() {}

    /** Slots of a register file: r0-r10, the memory windows and the budget, so that any 4-bit field is in bounds. */
    static final int SLOTS = 16;
    /**
     * The memory windows of {@link Machine} live in the register file past r10 (no program names
     * a register past r10): the dispatch loop reaches them through the array it already holds in a
     * register, instead of pinning four more values in machine registers.
     */
    static final int READ_LO = 11, READ_LEN = 12, WRITE_LO = 13, WRITE_LEN = 14;
    /** The budget passes in and out of {@link HotLoop#run} here, so that it needs no Machine. */
    static final int BUDGET = 15;

    private static final Unsafe U = TheUnsafe.get();
    private static final long BASE;
    /** Where a word's imm (its high 32 bits) sits, from the start of the word's slot. */
    private static final long IMM_OFFSET = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 4 : 0;
    static {
        BASE = U.arrayBaseOffset(long[].class);
        if (U.arrayIndexScale(long[].class) != 8) throw new ExceptionInInitializerError("long[] scale is not 8");
    }

    // The word is taken as a long so that the byte offset needs no int-to-long conversion.

    /** The register whose number sits in bits {@code 8..11} of the word {@code w} (the dst field). */
    static long dst(long[] r, long w) { return U.getLong(r, BASE + ((w >>> 5) & 0x78)); }

    /** The register whose number sits in bits {@code 12..15} of {@code w} (the src field). */
    static long src(long[] r, long w) { return U.getLong(r, BASE + ((w >>> 9) & 0x78)); }

    /**
     * A fused pair's third register Z ({@code rX = rY op rZ}): the src of its second slot's own word
     * ({@code rX op= rZ}). Read from the code, not from the first word, so that C2 does not decode
     * it above the switch on every dispatch (docs/interpreter.md section 10).
     */
    static long third(long[] r, long[] code, long pc) { return src(r, next(code, pc)); }

    static void setDst(long[] r, long w, long v) { U.putLong(r, BASE + ((w >>> 5) & 0x78), v); }

    /** Slot {@code i} (below {@link #SLOTS}, a constant) without a bounds check. */
    static long slot(long[] r, int i) { return U.getLong(r, BASE + 8L * i); }

    static void setSlot(long[] r, int i, long v) { U.putLong(r, BASE + 8L * i, v); }

    // pc is a long in the dispatch loop: the code word's address then needs no int-to-long
    // conversion, and a taken jump adds an offset decoded as a long (docs/interpreter.md, section 9).

    /** {@code code[pc + 1]}: the second slot of a fused pair (the decoder fuses no pair whose second slot is the trap slot). */
    static long next(long[] code, long pc) { return U.getLong(code, BASE + 8 + (pc << 3)); }

    /**
     * {@code (int) (code[pc] >> 32)}, the word's imm, sign-extended: read from memory, so that the
     * compare that needs it loads it itself. Computed from the word instead, C2 hoists it above the
     * switch, where it costs every dispatch and, with the loop's registers taken, a stack slot
     * (docs/interpreter.md section 10).
     */
    static long imm(long[] code, long pc) { return U.getInt(code, BASE + IMM_OFFSET + (pc << 3)); }

    /** {@code code[pc]} for a pc the decoder proved in bounds. */
    static long word(long[] code, long pc) { return U.getLong(code, BASE + (pc << 3)); }
}
