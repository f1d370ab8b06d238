package dev.bpf4j.stack;

/**
 * The kernel's {@code jhash2} ({@code include/linux/jhash.h}, Bob Jenkins' lookup3 on u32 words),
 * bit for bit: {@code bpf_get_stackid} hashes a trace as {@code jhash2((u32 *)ips, nr * 2, 0)},
 * each u64 ip read as two little-endian u32s (low word first).
 */
public final class Jhash {
    private Jhash() {}

    /** {@code JHASH_INITVAL}. */
    public static final int INITVAL = 0xdeadbeef;

    /** {@code jhash2(k, length, initval)} over the first {@code length} words of {@code k}. */
    public static int jhash2(int[] k, int length, int initval) {
        if (length < 0 || length > k.length) throw new IllegalArgumentException("length " + length + " outside 0.." + k.length);
        int a, b, c;
        a = b = c = INITVAL + (length << 2) + initval;
        int i = 0;
        while (length > 3) {
            a += k[i];
            b += k[i + 1];
            c += k[i + 2];
            // __jhash_mix
            a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
            b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
            c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
            a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
            b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
            c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
            length -= 3;
            i += 3;
        }
        switch (length) {
            case 3: c += k[i + 2]; // fall through
            case 2: b += k[i + 1]; // fall through
            case 1:
                a += k[i];
                // __jhash_final
                c ^= b; c -= Integer.rotateLeft(b, 14);
                a ^= c; a -= Integer.rotateLeft(c, 11);
                b ^= a; b -= Integer.rotateLeft(a, 25);
                c ^= b; c -= Integer.rotateLeft(b, 16);
                a ^= c; a -= Integer.rotateLeft(c, 4);
                b ^= a; b -= Integer.rotateLeft(a, 14);
                c ^= b; c -= Integer.rotateLeft(b, 24);
                break;
            default:
                break;
        }
        return c;
    }

    /** The hash of a trace: {@code jhash2((u32 *)&ips[from], nr * 2, 0)} on a little-endian machine. */
    public static int hashIps(long[] ips, int from, int nr) {
        int[] words = new int[nr * 2];
        for (int i = 0; i < nr; i++) {
            long ip = ips[from + i];
            words[2 * i] = (int) ip;
            words[2 * i + 1] = (int) (ip >>> 32);
        }
        return jhash2(words, words.length, 0);
    }
}
