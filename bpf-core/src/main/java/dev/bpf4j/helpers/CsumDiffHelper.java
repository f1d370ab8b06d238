package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;

/**
 * {@code bpf_csum_diff(from, from_size, to, to_size, seed)} as Linux computes it since 6.13 (the same on
 * every architecture): the ones'-complement sum of {@code to} less that of {@code from}, starting from
 * {@code seed}, folded to 16 bits (csum_from32to16, not complemented). Either buffer may be NULL with
 * size 0; the sizes need no alignment.
 */
final class CsumDiffHelper {
    private CsumDiffHelper() {}

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.CSUM_DIFF, "bpf_csum_diff", (call, r1, r2, r3, r4, r5) -> {
            long fromSize = r2 & 0xffffffffL, toSize = r4 & 0xffffffffL;
            call.checkArgument("bpf_csum_diff from (r1)", r1, fromSize, false);
            call.checkArgument("bpf_csum_diff to (r3)", r3, toSize, false);
            int ret = (int) r5;
            if (fromSize != 0 && toSize != 0) {
                ret = Checksums.sub(Checksums.partial(r3, toSize, ret), Checksums.partial(r1, fromSize, 0));
            } else if (toSize != 0) {
                ret = Checksums.partial(r3, toSize, ret);
            } else if (fromSize != 0) {
                ret = ~Checksums.partial(r1, fromSize, ~ret);
            }
            return Checksums.from32to16(ret);
        });
    }
}
