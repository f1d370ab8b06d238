package dev.bpf4j.asm;

import java.math.BigInteger;

/**
 * Parses the operand spellings of the conformance-suite assembler: registers {@code %r0}..{@code %r15}
 * ({@code r0} also accepted; r11-r15 exist only so negative tests can be written), decimal or
 * {@code 0x} hexadecimal numbers with an optional sign, memory references {@code [%r1+4]},
 * {@code [%r10-8]}, {@code [%r1]}. Failures throw {@link IllegalArgumentException} with the reason;
 * the assembler adds the line.
 */
final class Operands {
    private Operands() {}

    static final BigInteger MIN_S64 = BigInteger.valueOf(Long.MIN_VALUE);
    static final BigInteger MAX_U64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    static boolean isRegister(String s) {
        String t = s.startsWith("%") ? s.substring(1) : s;
        return t.matches("r\\d+");
    }

    static int register(String s) {
        if (!isRegister(s)) throw new IllegalArgumentException("expected a register, got '" + s + "'");
        String t = s.startsWith("%") ? s.substring(2) : s.substring(1);
        int n = Integer.parseInt(t);
        if (n > 15) throw new IllegalArgumentException("no such register '" + s + "'");
        return n;
    }

    static boolean isNumber(String s) { return s.matches("[+-]?(0[xX][0-9a-fA-F]+|\\d+)"); }

    static BigInteger number(String s) {
        if (!isNumber(s)) throw new IllegalArgumentException("expected a number, got '" + s + "'");
        boolean neg = s.startsWith("-");
        String t = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
        BigInteger v = t.startsWith("0x") || t.startsWith("0X") ? new BigInteger(t.substring(2), 16) : new BigInteger(t);
        return neg ? v.negate() : v;
    }

    /** A 32-bit immediate: any value in [-2^31, 2^32 - 1]; values past INT_MAX wrap (0xffffffff is -1). */
    static int imm32(String s) {
        long v = ranged(s, Integer.MIN_VALUE, 0xffffffffL, "32-bit immediate");
        return (int) v;
    }

    /** A 16-bit offset: any value in [-32768, 65535]; values past 32767 wrap as the suites' uint16 does. */
    static int off16(String s) {
        long v = ranged(s, Short.MIN_VALUE, 0xffff, "16-bit offset");
        return (short) v;
    }

    /** A 64-bit immediate: [-2^63, 2^64 - 1]. */
    static long imm64(String s) {
        BigInteger v = number(s);
        if (v.compareTo(MIN_S64) < 0 || v.compareTo(MAX_U64) > 0) {
            throw new IllegalArgumentException("64-bit immediate out of range: " + s);
        }
        return v.longValue();
    }

    private static long ranged(String s, long min, long max, String what) {
        BigInteger v = number(s);
        if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException(what + " out of range: " + s);
        }
        return v.longValue();
    }

    /** A memory reference {@code [reg+off]}: returns {reg, off}. */
    static int[] memory(String s) {
        String t = s.replace(" ", "");
        if (!t.startsWith("[") || !t.endsWith("]")) {
            throw new IllegalArgumentException("expected a memory operand like [%r1+4], got '" + s + "'");
        }
        t = t.substring(1, t.length() - 1);
        int split = Math.max(t.indexOf('+'), t.indexOf('-'));
        if (split < 0) return new int[] {register(t), 0};
        return new int[] {register(t.substring(0, split)), off16(t.substring(split))};
    }

    /** True for a jump target written as a relative slot count ({@code +3}, {@code -1}, {@code 0}). */
    static boolean isRelative(String s) { return isNumber(s); }
}
