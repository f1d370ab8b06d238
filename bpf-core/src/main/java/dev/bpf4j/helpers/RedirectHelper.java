package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;

/**
 * {@code bpf_redirect(u32 ifindex, u64 flags)}: in a test run nothing is sent; the helper records the
 * target and answers the verdict the program returns. XDP (bpf_xdp_redirect): XDP_REDIRECT, or
 * XDP_ABORTED for any flag. tc (bpf_redirect): TC_ACT_REDIRECT, or TC_ACT_SHOT for a flag other than
 * BPF_F_INGRESS. Linux offers it to no other program type.
 */
final class RedirectHelper {
    private RedirectHelper() {}

    static final long XDP_ABORTED = 0, XDP_REDIRECT = 4, TC_ACT_SHOT = 2, TC_ACT_REDIRECT = 7, BPF_F_INGRESS = 1;

    static void register(HelperRegistry.Builder b) {
        b.add(HelperIds.REDIRECT, "bpf_redirect", (call, r1, r2, r3, r4, r5) -> {
            RunContext rc = call.runContext();
            PacketBuffer p = rc == null ? null : rc.packetBuffer();
            if (p == null) throw call.badArgument("bpf_redirect is offered to XDP and tc programs only (this run has no packet)");
            if (p.kind() == PacketBuffer.Kind.XDP) return r2 != 0 ? XDP_ABORTED : XDP_REDIRECT;
            if (!p.writable()) throw call.badArgument("bpf_redirect is not offered to socket filter programs");
            return (r2 & ~BPF_F_INGRESS) != 0 ? TC_ACT_SHOT : TC_ACT_REDIRECT;
        });
    }
}
