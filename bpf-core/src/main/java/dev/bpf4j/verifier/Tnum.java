package dev.bpf4j.verifier;

/**
 * A tristate number ({@code struct tnum}, kernel/bpf/tnum.c): the bits of a register known to be 0
 * or 1. A bit set in {@code mask} is unknown; elsewhere it equals the bit of {@code value}, and
 * {@code value & mask} is always 0. The operations follow the kernel's and give a tnum holding every
 * concrete result of the operation on members of the operands.
 */
record Tnum(long value, long mask) {
    static final Tnum UNKNOWN = new Tnum(0, -1L);
    private static final long LOW32 = 0xffffffffL;

    static Tnum constant(long v) { return new Tnum(v, 0); }

    /** The smallest tnum holding every value of the unsigned range [min, max]. */
    static Tnum range(long min, long max) {
        long chi = min ^ max;
        int bits = 64 - Long.numberOfLeadingZeros(chi);
        if (bits > 63) return UNKNOWN;
        long delta = (1L << bits) - 1;
        return new Tnum(min & ~delta, delta);
    }

    boolean isConst() { return mask == 0; }

    boolean isUnknown() { return mask == -1L; }

    /** True when {@code v} may be a member. */
    boolean contains(long v) { return (v & ~mask) == value; }

    /** tnum_in: every member of {@code b} is one of this. */
    boolean includes(Tnum b) {
        if ((b.mask & ~mask) != 0) return false;
        return value == (b.value & ~mask);
    }

    Tnum lshift(int s) { return new Tnum(value << s, mask << s); }

    Tnum rshift(int s) { return new Tnum(value >>> s, mask >>> s); }

    /** Arithmetic shift right of a 64-bit value, or of the low 32 bits as an s32 (the result zero-extended). */
    Tnum arshift(int s, boolean alu32) {
        if (alu32) return new Tnum(((int) value >> s) & LOW32, ((int) mask >> s) & LOW32);
        return new Tnum(value >> s, mask >> s);
    }

    Tnum add(Tnum b) {
        long sm = mask + b.mask, sv = value + b.value, sigma = sm + sv, chi = sigma ^ sv, mu = chi | mask | b.mask;
        return new Tnum(sv & ~mu, mu);
    }

    Tnum sub(Tnum b) {
        long dv = value - b.value, alpha = dv + mask, beta = dv - b.mask, chi = alpha ^ beta, mu = chi | mask | b.mask;
        return new Tnum(dv & ~mu, mu);
    }

    Tnum and(Tnum b) {
        long alpha = value | mask, beta = b.value | b.mask, v = value & b.value;
        return new Tnum(v, alpha & beta & ~v);
    }

    Tnum or(Tnum b) {
        long v = value | b.value, mu = mask | b.mask;
        return new Tnum(v, mu & ~v);
    }

    Tnum xor(Tnum b) {
        long v = value ^ b.value, mu = mask | b.mask;
        return new Tnum(v & ~mu, mu);
    }

    /** Long multiplication bit by bit, as the kernel's tnum_mul. */
    Tnum mul(Tnum b) {
        if (mask == 0 && b.mask == 0) return constant(value * b.value); // what the loop below gives, without 64 rounds
        // the kernel's loop on plain longs: it runs for every mul the verifier follows, often 64 rounds
        long av = value, am = mask, bv = b.value, bm = b.mask, accValue = 0, accMask = 0;
        while (av != 0 || am != 0) {
            long addend = (av & 1) != 0 ? bm : (am & 1) != 0 ? bv | bm : 0;
            if (addend != 0) { // accM = accM + tnum(0, addend)
                long sm = accMask + addend, sigma = sm + accValue, chi = sigma ^ accValue, mu = chi | accMask | addend;
                accValue &= ~mu;
                accMask = mu;
            }
            av >>>= 1;
            am >>>= 1;
            bv <<= 1;
            bm <<= 1;
        }
        return constant(value * b.value).add(new Tnum(accValue, accMask));
    }

    /** Members of both: the bits either knows. */
    Tnum intersect(Tnum b) {
        long v = value | b.value, mu = mask & b.mask;
        return new Tnum(v & ~mu, mu);
    }

    /** The low {@code size} bytes (tnum_cast). */
    Tnum cast(int size) {
        long keep = size >= 8 ? -1L : (1L << (size * 8)) - 1;
        return new Tnum(value & keep, mask & keep);
    }

    /** The low 32 bits (tnum_subreg). */
    Tnum subreg() { return new Tnum(value & LOW32, mask & LOW32); }

    /** The high 32 bits, the low ones cleared (tnum_clear_subreg). */
    Tnum clearSubreg() { return new Tnum(value & ~LOW32, mask & ~LOW32); }

    /** This tnum's high 32 bits with {@code sub}'s low ones (tnum_with_subreg). */
    Tnum withSubreg(Tnum sub) { return clearSubreg().or(sub.subreg()); }

    @Override public String toString() { return "(0x" + Long.toHexString(value) + "; 0x" + Long.toHexString(mask) + ")"; }
}
