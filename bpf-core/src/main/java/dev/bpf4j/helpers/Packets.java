package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;

/** Finds the run's {@link PacketBuffer} for a packet helper whose r1 is the ctx (ARG_PTR_TO_CTX). */
final class Packets {
    private Packets() {}

    static final int ETH_HLEN = 14;
    /** The kernel's errno values the packet helpers return (negated). */
    static final long EINVAL = -22, EFAULT = -14, EACCES = -13, ENOMEM = -12, EALREADY = -114, ENOTSUPP = -524;
    /** struct __sk_buff (include/uapi/linux/bpf.h): the fields the skb helpers rewrite. */
    static final int SKB_LEN = 0, SKB_PKT_TYPE = 4, SKB_PROTOCOL = 16, SKB_VLAN_PRESENT = 20, SKB_VLAN_TCI = 24, SKB_VLAN_PROTO = 28;

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

    /**
     * Moves an sk_buff's {@code data} and {@code data_end} (bpf_compute_data_pointers) and its {@code len};
     * false, moving nothing, when the frame has no room left (the kernel would reallocate the head: -ENOMEM
     * only when that fails, which here means the program pushed past BPF_SKB_MAX_LEN of headroom).
     */
    static boolean moveSkb(HelperCall call, PacketBuffer p, long data, long dataEnd) {
        if (data < p.hardStart() || dataEnd > p.hardEnd() || data > dataEnd) return false;
        p.move(call, data, data, dataEnd);
        NativeMemory.putInt(p.ctx() + SKB_LEN, (int) (dataEnd - data));
        return true;
    }

    /** skb->protocol, host order (the ctx holds the big-endian u16 in a u32). */
    static int protocol(PacketBuffer p) { return Short.reverseBytes(NativeMemory.getShort(p.ctx() + SKB_PROTOCOL)) & 0xffff; }

    /** bpf_skb_change_protocol: skb->protocol = htons(proto). */
    static void setProtocol(PacketBuffer p, int proto) { NativeMemory.putInt(p.ctx() + SKB_PROTOCOL, Short.reverseBytes((short) proto) & 0xffff); }

    /** A packet the helper writes: socket filters see theirs read-only (Linux does not offer them the writing helpers). */
    static PacketBuffer writable(HelperCall call, String helper, long ctx) {
        PacketBuffer p = of(call, helper, ctx, PacketBuffer.Kind.SKB);
        if (!p.writable()) throw call.badArgument(helper + " is not offered to socket filter programs: their packet is read-only");
        return p;
    }
}
