package dev.bpf4j.helpers;

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
    }

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
