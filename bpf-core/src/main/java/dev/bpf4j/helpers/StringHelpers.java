package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;

/**
 * {@code long bpf_strncmp(const char *s1, u32 s1_sz, const char *s2)} (kernel/bpf/helpers.c): the kernel's
 * {@code strncmp(s1, s2, s1_sz)}, which returns -1, 0 or 1. Its prototype's rules, which the kernel's verifier
 * enforces at load, are checked when the helper runs: s1 is {@code ARG_PTR_TO_MEM} with the
 * {@code ARG_CONST_SIZE} s1_sz (all of it readable, not zero), and s2 {@code ARG_PTR_TO_CONST_STR}: a
 * NUL-terminated string in memory the program can read but not write (a frozen {@code .rodata} map).
 */
final class StringHelpers {
    private StringHelpers() {}

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.STRNCMP, "bpf_strncmp", (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            if (size == 0) throw call.badArgument("bpf_strncmp s1_sz (r2): 0 (ARG_CONST_SIZE: the kernel refuses a zero-sized read)");
            call.checkArgument(1, "bpf_strncmp s1 (r1)", r1, size, false);
            requireConstString(call, r3);
            return strncmp(r1, r3, size);
        });
        b.addForward(HelperIds.STRTOL, "bpf_strtol", (call, r1, r2, r3, r4, r5) -> strtox(call, "bpf_strtol", r1, r2, r3, r4, true));
        b.addForward(HelperIds.STRTOUL, "bpf_strtoul", (call, r1, r2, r3, r4, r5) -> strtox(call, "bpf_strtoul", r1, r2, r3, r4, false));
    }

    static final long EINVAL = -22, ERANGE = -34;
    private static final long BPF_STRTOX_BASE_MASK = 0x1f;

    /**
     * bpf_strtol / bpf_strtoul (kernel/bpf/helpers.c, __bpf_strtoull): leading white space, one '-',
     * then kstrtox's digits in base 8, 10, 16 or 0 (0x / 0 prefixes) from at most 63 bytes; *res is
     * zeroed first, set on success; returns the bytes consumed or -EINVAL / -ERANGE.
     */
    private static long strtox(HelperCall call, String helper, long buf, long r2, long flags, long res, boolean signed) {
        long len = r2 & 0xffffffffL;
        if (len == 0) throw call.badArgument(helper + " buf_len (r2): 0 (ARG_CONST_SIZE: the kernel refuses a zero-sized read)");
        call.checkArgument(helper + " buf (r1)", buf, len, false);
        call.checkArgument(helper + " res (r4)", res, 8, true);
        NativeMemory.putLong(res, 0);
        int base = (int) (flags & BPF_STRTOX_BASE_MASK);
        if (base != 0 && base != 8 && base != 10 && base != 16) return EINVAL;
        if ((flags & ~BPF_STRTOX_BASE_MASK) != 0) return EINVAL;
        long cur = 0;
        while (cur < len && isSpace(NativeMemory.getByte(buf + cur) & 0xff)) cur++;
        boolean negative = cur < len && NativeMemory.getByte(buf + cur) == '-';
        if (negative) cur++;
        long consumed = cur;
        if (len - cur == 0) return EINVAL;
        byte[] str = new byte[(int) Math.min(len - cur, 63) + 1]; // NUL-terminated copy, as the kernel's char str[64]
        NativeMemory.read(buf + cur, str, 0, str.length - 1);
        int s = 0;
        if (base == 0) {
            if (str[0] == '0') base = (lower(at(str, 1)) == 'x' && isXdigit(at(str, 2))) ? 16 : 8;
            else base = 10;
        }
        if (base == 16 && str[0] == '0' && lower(at(str, 1)) == 'x') s = 2;
        long value = 0;
        boolean overflow = false;
        int digits = 0;
        for (int i = s; i < str.length; i++) {
            int c = str[i] & 0xff, lc = lower(c), v;
            if (c >= '0' && c <= '9') v = c - '0';
            else if (lc >= 'a' && lc <= 'f') v = lc - 'a' + 10;
            else break;
            if (v >= base) break;
            if ((value & (~0L << 60)) != 0 && Long.compareUnsigned(value, Long.divideUnsigned(-1L - v, base)) > 0) overflow = true;
            value = value * base + v;
            digits++;
        }
        if (overflow) return ERANGE;
        if (digits == 0) return EINVAL;
        consumed += s + digits;
        if (signed) {
            if (negative) {
                if (-value > 0) return ERANGE;
                value = -value;
            } else if (value < 0) {
                return ERANGE;
            }
        } else if (negative) {
            return EINVAL;
        }
        NativeMemory.putLong(res, value);
        return consumed;
    }

    private static int at(byte[] s, int i) { return i < s.length ? s[i] & 0xff : 0; }
    private static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
    private static boolean isXdigit(int c) { return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'f'); }

    /** The kernel's isspace (lib/ctype.c): \t \n \v \f \r, space and Latin-1's no-break space (0xa0). */
    private static boolean isSpace(int c) { return c == ' ' || (c >= 9 && c <= 13) || c == 0xa0; }

    /** lib/string.c's strncmp: the first differing byte decides, unsigned; a NUL in both ends the compare. */
    static int strncmp(long s1, long s2, long count) {
        for (long i = 0; i < count; i++) {
            int c1 = NativeMemory.getByte(s1 + i) & 0xff, c2 = NativeMemory.getByte(s2 + i) & 0xff;
            if (c1 != c2) return c1 < c2 ? -1 : 1;
            if (c1 == 0) break;
        }
        return 0;
    }

    /** ARG_PTR_TO_CONST_STR: every byte up to and including the NUL is readable and read-only for the program. */
    private static void requireConstString(HelperCall call, long s) {
        for (long i = 0; ; i++) {
            if (!call.accessible(3, s + i, 1, false)) {
                throw call.badArgument(String.format("bpf_strncmp s2 (r3): byte %d of the string at 0x%x is not readable by this program"
                        + " (no NUL before it)", i, s));
            }
            if (call.accessible(3, s + i, 1, true)) {
                throw call.badArgument(String.format("bpf_strncmp s2 (r3): the string at 0x%x is writable by this program; it must be"
                        + " a constant string (in a read-only map such as a frozen .rodata)", s));
            }
            if (NativeMemory.getByte(s + i) == 0) return;
        }
    }
}
