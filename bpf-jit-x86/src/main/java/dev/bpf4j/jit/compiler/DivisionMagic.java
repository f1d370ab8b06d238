package dev.bpf4j.jit.compiler;

import java.math.BigInteger;

/**
 * Unsigned 64-bit division by a constant as a multiply-high and shifts (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994; what gcc emits for {@code x / 1000003}).
 * For a divisor {@code d >= 3} that is not a power of two, with {@code l = ceil(log2 d)}:
 * <ul>
 *   <li>if {@code m = ceil(2^(63+l) / d)} satisfies {@code m*d - 2^(63+l) <= 2^(l-1)} (Theorem 4.2),
 *       then {@code n / d = mulhi(n, m) >> (l-1)} for every 64-bit n ({@link #add} false);</li>
 *   <li>otherwise {@code m = ceil(2^(64+l) / d) - 2^64} and, with {@code t = mulhi(n, m)},
 *       {@code n / d = (t + ((n - t) >> 1)) >> (l-1)} ({@link #add} true).</li>
 * </ul>
 */
record DivisionMagic(long multiplier, boolean add, int shift) {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    static DivisionMagic of(long divisor) {
        if (Long.compareUnsigned(divisor, 3) < 0 || Long.bitCount(divisor) == 1) {
            throw new IllegalArgumentException("divisor " + Long.toUnsignedString(divisor) + " needs no magic");
        }
        int l = 64 - Long.numberOfLeadingZeros(divisor - 1);
        BigInteger d = new BigInteger(Long.toUnsignedString(divisor));
        BigInteger p = BigInteger.ONE.shiftLeft(63 + l);
        BigInteger m = ceilDiv(p, d);
        if (m.compareTo(TWO_64) < 0 && m.multiply(d).subtract(p).compareTo(BigInteger.ONE.shiftLeft(l - 1)) <= 0) {
            return new DivisionMagic(m.longValue(), false, l - 1);
        }
        BigInteger m2 = ceilDiv(BigInteger.ONE.shiftLeft(64 + l), d).subtract(TWO_64);
        return new DivisionMagic(m2.longValue(), true, l - 1);
    }

    private static BigInteger ceilDiv(BigInteger a, BigInteger b) {
        BigInteger[] qr = a.divideAndRemainder(b);
        return qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    }

    /** The quotient this magic computes, in Java (what the emitted code does; for tests). */
    long quotient(long n) {
        long t = Math.multiplyHigh(n, multiplier) + ((n >> 63) & multiplier) + ((multiplier >> 63) & n); // unsigned mulhi
        if (!add) return t >>> shift;
        return (t + ((n - t) >>> 1)) >>> shift;
    }
}
