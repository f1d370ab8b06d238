package dev.bpf4j.isa;

/**
 * The arithmetic of RFC 9669 section 4, written once. The interpreter calls these; a JIT and the verifier (constant folding) can call
 * them or use them as the oracle its emitted code must match. 32-bit forms take the low 32 bits of
 * their operands and return the result zero-extended to 64 bits.
 */
public final class AluOps {
    private AluOps() {}

    public static final long MASK32 = 0xffffffffL;

    public static long u32(int v) { return v & MASK32; }

    // ---- 64-bit (BPF_ALU64) ----
    public static long add64(long a, long b) { return a + b; }
    public static long sub64(long a, long b) { return a - b; }
    public static long mul64(long a, long b) { return a * b; }
    /** Unsigned division; division by zero gives 0. */
    public static long div64(long a, long b) { return b == 0 ? 0 : Long.divideUnsigned(a, b); }
    /** Signed division truncating towards zero; x / 0 = 0 and LLONG_MIN / -1 = LLONG_MIN (Java's / already wraps). */
    public static long sdiv64(long a, long b) { return b == 0 ? 0 : a / b; }
    /** Unsigned modulo; modulo by zero leaves dst unchanged. */
    public static long mod64(long a, long b) { return b == 0 ? a : Long.remainderUnsigned(a, b); }
    /** Signed modulo with the sign of the dividend (C semantics); LLONG_MIN % -1 = 0. */
    public static long smod64(long a, long b) { return b == 0 ? a : a % b; }
    public static long or64(long a, long b) { return a | b; }
    public static long and64(long a, long b) { return a & b; }
    public static long xor64(long a, long b) { return a ^ b; }
    /** Java masks long shift counts with 63, exactly as RFC 9669 requires. */
    public static long lsh64(long a, long b) { return a << b; }
    public static long rsh64(long a, long b) { return a >>> b; }
    public static long arsh64(long a, long b) { return a >> b; }
    public static long neg64(long a) { return -a; }

    /** {@code movsx} (ALU64 MOV with offset 8/16/32): sign-extends the low {@code bits} of {@code v}. */
    public static long movsx64(long v, int bits) {
        switch (bits) {
            case 8: return (byte) v;
            case 16: return (short) v;
            case 32: return (int) v;
            default: throw new IllegalArgumentException("movsx width " + bits);
        }
    }

    // ---- 32-bit (BPF_ALU): operands truncated, result zero-extended ----
    public static long add32(long a, long b) { return u32((int) a + (int) b); }
    public static long sub32(long a, long b) { return u32((int) a - (int) b); }
    public static long mul32(long a, long b) { return u32((int) a * (int) b); }
    public static long div32(long a, long b) { return (int) b == 0 ? 0 : u32(Integer.divideUnsigned((int) a, (int) b)); }
    public static long sdiv32(long a, long b) { return (int) b == 0 ? 0 : u32((int) a / (int) b); }
    /** Modulo by zero leaves dst unchanged, still zero-extended from 32 bits. */
    public static long mod32(long a, long b) { return (int) b == 0 ? a & MASK32 : u32(Integer.remainderUnsigned((int) a, (int) b)); }
    public static long smod32(long a, long b) { return (int) b == 0 ? a & MASK32 : u32((int) a % (int) b); }
    public static long or32(long a, long b) { return (a | b) & MASK32; }
    public static long and32(long a, long b) { return (a & b) & MASK32; }
    public static long xor32(long a, long b) { return (a ^ b) & MASK32; }
    /** Java masks int shift counts with 31, exactly as RFC 9669 requires. */
    public static long lsh32(long a, long b) { return u32((int) a << (int) b); }
    public static long rsh32(long a, long b) { return u32((int) a >>> (int) b); }
    public static long arsh32(long a, long b) { return u32((int) a >> (int) b); }
    public static long neg32(long a) { return u32(-(int) a); }
    public static long mov32(long b) { return b & MASK32; }

    /** ALU {@code movsx} with offset 8/16: sign-extends to 32 bits, then zero-extends. */
    public static long movsx32(long v, int bits) { return u32((int) movsx64(v, bits)); }

    // ---- byte order (BPF_END); the host, like every x86-64, is little-endian ----
    /** {@code le16/le32/le64}: truncate to the width (zero-extend); le64 is a no-op. */
    public static long toLe(long v, int bits) {
        switch (bits) {
            case 16: return v & 0xffffL;
            case 32: return v & MASK32;
            case 64: return v;
            default: throw new IllegalArgumentException("byte-swap width " + bits);
        }
    }

    /** {@code be16/be32/be64} and ALU64 {@code bswap16/32/64}: swap the low bytes, zero-extend. */
    public static long bswap(long v, int bits) {
        switch (bits) {
            case 16: return Short.reverseBytes((short) v) & 0xffffL;
            case 32: return Integer.reverseBytes((int) v) & MASK32;
            case 64: return Long.reverseBytes(v);
            default: throw new IllegalArgumentException("byte-swap width " + bits);
        }
    }
}
