package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.SkbState;

/**
 * bpf_skb_ecn_set_ce(skb) (net/core/filter.c, INET_ECN_set_ce of include/net/inet_ecn.h): marks an ECN-capable
 * IPv4 or IPv6 packet Congestion Experienced at its network header, the IPv4 header checksum updated
 * incrementally; returns 1 when the packet is (now) CE, 0 when it is not ECN-capable or not IP. The protocol
 * is skb_protocol(skb, true): VLAN tags in the packet are looked through (__vlan_get_protocol).
 */
final class EcnHelper {
    private EcnHelper() {}

    static final int ETH_P_IP = 0x0800, ETH_P_IPV6 = 0x86dd, VLAN_MAX_DEPTH = 8, VLAN_HLEN = 4;

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.SKB_ECN_SET_CE, "bpf_skb_ecn_set_ce", EcnHelper::setCe);
    }

    static long setCe(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_ecn_set_ce", r1);
        int proto = vlanGetProtocol(p);
        int hdrLen = proto == ETH_P_IP ? 20 : proto == ETH_P_IPV6 ? 40 : 0;
        if (hdrLen == 0 || p.length() < hdrLen) return 0;
        long nh = p.skb().networkHeader();
        if (nh + hdrLen > p.dataEnd()) return 0;
        return proto == ETH_P_IP ? ipSetCe(nh) : ip6SetCe(nh);
    }

    /** IP_ECN_set_ce: ECT(1)/ECT(0) become CE with check += htons(0xFFFB) + htons(ecn); CE stays (1), Not-ECT too (0). */
    private static long ipSetCe(long iph) {
        int tos = NativeMemory.getByte(iph + 1) & 0xff;
        int ecn = (tos + 1) & 3;
        if ((ecn & 2) == 0) return ecn == 0 ? 1 : 0;
        // the kernel adds big-endian u16 values as stored, i.e. byte-swapped on x86
        int add = (Short.reverseBytes((short) 0xfffb) & 0xffff) + (Short.reverseBytes((short) ecn) & 0xffff) & 0xffff;
        int res = ((NativeMemory.getShort(iph + 10) & 0xffff) + add) & 0xffff;
        NativeMemory.putShort(iph + 10, (short) (res + (res < add ? 1 : 0))); // csum16_add
        NativeMemory.putByte(iph + 1, (byte) (tos | 3));
        return 1;
    }

    /** IP6_ECN_set_ce: the traffic class's ECN bits to CE unless Not-ECT. */
    private static long ip6SetCe(long iph) {
        int first = Integer.reverseBytes(NativeMemory.getInt(iph));
        if (((first >>> 20) & 3) == 0) return 0;
        NativeMemory.putInt(iph, Integer.reverseBytes(first | 3 << 20));
        return 1;
    }

    /** __vlan_get_protocol(skb, skb->protocol): the type after up to VLAN_MAX_DEPTH tags in the packet, 0 when cut short. */
    static int vlanGetProtocol(PacketBuffer p) {
        int type = Packets.protocol(p);
        if (type != VlanHelpers.ETH_P_8021Q && type != VlanHelpers.ETH_P_8021AD) return type;
        SkbState s = p.skb();
        long depth = s.macLen();
        if (depth != 0) {
            if (depth < VLAN_HLEN) return 0;
            depth -= VLAN_HLEN;
        } else {
            depth = Packets.ETH_HLEN;
        }
        int parse = VLAN_MAX_DEPTH;
        do {
            if (depth + VLAN_HLEN > p.length() || --parse == 0) return 0; // skb_header_pointer
            type = Short.reverseBytes(NativeMemory.getShort(p.data() + depth + 2)) & 0xffff;
            depth += VLAN_HLEN;
        } while (type == VlanHelpers.ETH_P_8021Q || type == VlanHelpers.ETH_P_8021AD);
        return type;
    }
}
