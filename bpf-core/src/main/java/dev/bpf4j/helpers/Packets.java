package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;

/** Finds the run's {@link PacketBuffer} for a packet helper whose r1 is the ctx (ARG_PTR_TO_CTX). */
final class Packets {
    private Packets() {}

    static final int ETH_HLEN = 14;
    /** The kernel's errno values the packet helpers return (negated). */
    static final long EINVAL = -22, EFAULT = -14, EACCES = -13, ENOMEM = -12, ENOTSUPP = -524;

    /**
     * The packet of this run when it is of {@code kind} and {@code ctx} is its context; otherwise the
     * call ends with BAD_HELPER_ARGUMENT (Linux's verifier refuses such a call at load: the helper is
     * not offered to the program type, or r1 is not the ctx).
     */
    static PacketBuffer of(HelperCall call, String helper, long ctx, PacketBuffer.Kind kind) {
        RunContext rc = call.runContext();
        PacketBuffer p = rc == null ? null : rc.packetBuffer();
        if (p == null || p.kind() != kind) {
            throw call.badArgument(helper + " needs a program whose ctx is " + (kind == PacketBuffer.Kind.XDP ? "an xdp_md (XDP)"
                    : "an __sk_buff (tc, socket filter, cgroup_skb)") + " run with a packet; this run has "
                    + (p == null ? "none" : p.kind() == PacketBuffer.Kind.XDP ? "an xdp_md" : "an __sk_buff"));
        }
        if (ctx != p.ctx()) {
            throw call.badArgument(String.format("%s ctx (r1): 0x%x is not the program's context 0x%x (ARG_PTR_TO_CTX)", helper, ctx, p.ctx()));
        }
        return p;
    }

    /** A packet the helper writes: socket filters see theirs read-only (Linux does not offer them the writing helpers). */
    static PacketBuffer writable(HelperCall call, String helper, long ctx) {
        PacketBuffer p = of(call, helper, ctx, PacketBuffer.Kind.SKB);
        if (!p.writable()) throw call.badArgument(helper + " is not offered to socket filter programs: their packet is read-only");
        return p;
    }
}
