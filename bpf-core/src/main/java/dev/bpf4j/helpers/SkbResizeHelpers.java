package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.SkbState;

import static dev.bpf4j.helpers.Packets.EALREADY;
import static dev.bpf4j.helpers.Packets.EFAULT;
import static dev.bpf4j.helpers.Packets.EINVAL;
import static dev.bpf4j.helpers.Packets.ENOMEM;
import static dev.bpf4j.helpers.Packets.ENOTSUPP;

/**
 * The tc helpers of net/core/filter.c that make the sk_buff longer or shorter: {@code bpf_skb_change_head},
 * {@code bpf_skb_change_tail} and {@code bpf_skb_adjust_room}, over the test run's linear, non-GSO skb
 * with {@code ip_summed} CHECKSUM_NONE or CHECKSUM_UNNECESSARY ({@link PacketBuffer}, {@link SkbState}).
 * Each one ends with {@code bpf_compute_data_pointers}: the ctx's data, data_end and len follow the packet.
 */
final class SkbResizeHelpers {
    private SkbResizeHelpers() {}

    /** BPF_SKB_MAX_LEN = SKB_MAX_ALLOC: 16 KiB less SKB_DATA_ALIGN(sizeof(struct skb_shared_info)). */
    static final long BPF_SKB_MAX_LEN = 16384 - 320;
    static final int ETH_P_IP = 0x0800, ETH_P_IPV6 = 0x86dd, IPV4_HLEN = 20, IPV6_HLEN = 40;
    static final long ADJ_ROOM_FIXED_GSO = 1, ENCAP_L3_IPV4 = 2, ENCAP_L3_IPV6 = 4, ENCAP_L4_GRE = 8, ENCAP_L4_UDP = 16,
            NO_CSUM_RESET = 32, ENCAP_L2_ETH = 64, DECAP_L3_IPV4 = 128, DECAP_L3_IPV6 = 256;
    static final int ENCAP_L2_SHIFT = 56;
    static final long ENCAP_L3_MASK = ENCAP_L3_IPV4 | ENCAP_L3_IPV6, DECAP_L3_MASK = DECAP_L3_IPV4 | DECAP_L3_IPV6;
    /** BPF_F_ADJ_ROOM_MASK: every flag bpf_skb_adjust_room knows, the inner L2 length in the top byte included. */
    static final long ADJ_ROOM_MASK = ADJ_ROOM_FIXED_GSO | ENCAP_L3_MASK | ENCAP_L4_GRE | ENCAP_L4_UDP | ENCAP_L2_ETH
            | (0xffL << ENCAP_L2_SHIFT) | DECAP_L3_MASK;
    static final int BPF_ADJ_ROOM_NET = 0, BPF_ADJ_ROOM_MAC = 1, PACKET_OTHERHOST = 3;

    /**
     * bpf_skb_change_proto(skb, __be16 proto, u64 flags): IPv4 to IPv6 inserts 20 zero bytes after the mac header,
     * IPv6 to IPv4 removes 20 there (the program rewrites the header); skb->protocol follows, the hash is cleared.
     */
    static long changeProto(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_change_proto", r1);
        if (r3 != 0) return EINVAL;
        int from = Packets.protocol(p), to = Short.reverseBytes((short) r2) & 0xffff;
        long off = p.skb().networkHeader() - p.skb().macHeader(), diff = IPV6_HLEN - IPV4_HLEN;
        boolean ok;
        if (from == ETH_P_IP && to == ETH_P_IPV6) ok = netHdrPush(call, p, off, diff);
        else if (from == ETH_P_IPV6 && to == ETH_P_IP) ok = netHdrPop(call, p, off, diff);
        else return ENOTSUPP;
        if (!ok) return ENOMEM;
        Packets.setProtocol(p, to);
        NativeMemory.putInt(p.ctx() + SkbHelpers.SKB_HASH, 0); // skb_clear_hash
        p.skb().setHashValid(false);
        return 0;
    }

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.SKB_CHANGE_HEAD, "bpf_skb_change_head", SkbResizeHelpers::changeHead);
        b.addForward(HelperIds.SKB_CHANGE_TAIL, "bpf_skb_change_tail", SkbResizeHelpers::changeTail);
        b.addForward(HelperIds.SKB_ADJUST_ROOM, "bpf_skb_adjust_room", SkbResizeHelpers::adjustRoom);
        b.addForward(HelperIds.SKB_CHANGE_PROTO, "bpf_skb_change_proto", SkbResizeHelpers::changeProto);
        // bpf_skb_change_type(skb, u32 pkt_type): only between PACKET_HOST .. PACKET_OTHERHOST (skb_pkt_type_ok)
        b.addForward(HelperIds.SKB_CHANGE_TYPE, "bpf_skb_change_type", (call, r1, r2, r3, r4, r5) -> {
            PacketBuffer p = Packets.writable(call, "bpf_skb_change_type", r1);
            long now = NativeMemory.getInt(p.ctx() + Packets.SKB_PKT_TYPE) & 0xffffffffL, to = r2 & 0xffffffffL;
            if (now > PACKET_OTHERHOST || to > PACKET_OTHERHOST) return EINVAL;
            NativeMemory.putInt(p.ctx() + Packets.SKB_PKT_TYPE, (int) to);
            return 0;
        });
    }

    /** bpf_skb_change_head(skb, u32 head_room, u64 flags): head_room zero bytes in front; the mac header starts there. */
    static long changeHead(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_change_head", r1);
        long room = r2 & 0xffffffffL, newLen = (p.length() + room) & 0xffffffffL;
        if (r3 != 0 || (int) room < 0 || newLen > BPF_SKB_MAX_LEN || newLen < p.length()) return EINVAL;
        long data = p.data() - room;
        if (!Packets.moveSkb(call, p, data, p.dataEnd())) return ENOMEM;
        NativeMemory.setMemory(data, room, (byte) 0);
        SkbState s = p.skb();
        s.setHeaders(data, s.networkHeader(), s.transportHeader()); // skb_reset_mac_header
        s.resetMacLen();
        return 0;
    }

    /** bpf_skb_change_tail(skb, u32 new_len, u64 flags): grows (zero-filled) or trims the packet to new_len. */
    static long changeTail(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_change_tail", r1);
        long newLen = r2 & 0xffffffffL;
        if (r3 != 0 || newLen > BPF_SKB_MAX_LEN || newLen < minLen(p)) return EINVAL;
        if (p.skb().encapsulation()) return ENOTSUPP;
        long oldEnd = p.dataEnd();
        if (!Packets.moveSkb(call, p, p.data(), p.data() + newLen)) return ENOMEM;
        if (p.dataEnd() > oldEnd) NativeMemory.setMemory(oldEnd, p.dataEnd() - oldEnd, (byte) 0);
        return 0;
    }

    /** __bpf_skb_min_len: the network header's offset, or the transport header's once set. */
    private static long minLen(PacketBuffer p) {
        SkbState s = p.skb();
        long min = Math.max(0, s.networkHeader() - p.data());
        if (s.transportHeader() != 0 && s.transportHeader() - p.data() > 0) min = s.transportHeader() - p.data();
        return min;
    }

    /**
     * bpf_skb_adjust_room(skb, s32 len_diff, u32 mode, u64 flags): inserts (zeroed) or removes |len_diff| bytes
     * after the mac header (BPF_ADJ_ROOM_MAC) or after the IPv4/IPv6 base header (BPF_ADJ_ROOM_NET), with the
     * kernel's checks in its order, the encapsulation flags' effects on skb->protocol and skb->encapsulation,
     * and the reset of CHECKSUM_UNNECESSARY unless BPF_F_ADJ_ROOM_NO_CSUM_RESET.
     */
    static long adjustRoom(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_adjust_room", r1);
        int lenDiff = (int) r2;
        long diff = Math.abs((long) lenDiff), mode = r3 & 0xffffffffL, flags = r4;
        boolean shrink = lenDiff < 0;
        int proto = Packets.protocol(p);
        if ((flags & ~(ADJ_ROOM_MASK | NO_CSUM_RESET)) != 0) return EINVAL;
        if ((diff & 0xffffffffL) > 0xfff) return EFAULT;
        if (proto != ETH_P_IP && proto != ETH_P_IPV6) return ENOTSUPP;
        long baseLen = proto == ETH_P_IP ? IPV4_HLEN : IPV6_HLEN, lenMin = baseLen;
        SkbState s = p.skb();
        long off = s.networkHeader() - s.macHeader();
        if (mode == BPF_ADJ_ROOM_NET) off += baseLen;
        else if (mode != BPF_ADJ_ROOM_MAC) return ENOTSUPP;
        if ((flags & DECAP_L3_MASK) != 0) {
            if (!shrink) return EINVAL;
            long decap = flags & DECAP_L3_MASK;
            if (decap == DECAP_L3_IPV4) lenMin = IPV4_HLEN;
            else if (decap == DECAP_L3_IPV6) lenMin = IPV6_HLEN;
            else return EINVAL;
        }
        long lenCur = p.length() - (s.networkHeader() - p.data());
        if ((shrink && (diff >= lenCur || lenCur - diff < lenMin)) || (!shrink && p.length() + diff > BPF_SKB_MAX_LEN)) return ENOTSUPP;
        long ret = shrink ? shrink(call, p, off, diff, flags, proto) : grow(call, p, off, diff, flags, proto);
        if (ret == 0 && (flags & NO_CSUM_RESET) == 0 && p.ipSummed() == SkbHelpers.CHECKSUM_UNNECESSARY) {
            p.setChecksum(SkbHelpers.CHECKSUM_NONE, 0); // __skb_reset_checksum_unnecessary
        }
        return ret;
    }

    /** bpf_skb_net_grow: bpf_skb_net_hdr_push of len zero bytes at off, then the encapsulation bookkeeping. */
    private static long grow(HelperCall call, PacketBuffer p, long off, long len, long flags, int proto) {
        SkbState s = p.skb();
        int innerMacLen = (int) (flags >>> ENCAP_L2_SHIFT);
        boolean encap = (flags & ENCAP_L3_MASK) != 0;
        long macLen = 0;
        if (encap) {
            if ((flags & ENCAP_L3_MASK) == ENCAP_L3_MASK) return EINVAL;
            if ((flags & ENCAP_L4_GRE) != 0 && (flags & ENCAP_L4_UDP) != 0) return EINVAL;
            if ((flags & ENCAP_L2_ETH) != 0 && innerMacLen < Packets.ETH_HLEN) return EINVAL;
            if (s.encapsulation()) return EALREADY;
            macLen = s.networkHeader() - s.macHeader();
            if (innerMacLen > len) return EINVAL;
        }
        if (!netHdrPush(call, p, off, len)) return ENOMEM;
        if (encap) {
            s.setEncapsulation(true);
            long network = p.data() + macLen; // skb_set_network_header(skb, mac_len)
            long transport = s.transportHeader();
            if ((flags & (ENCAP_L4_GRE | ENCAP_L4_UDP)) != 0) {
                transport = network + ((flags & ENCAP_L3_IPV6) != 0 ? IPV6_HLEN : IPV4_HLEN);
            }
            s.setHeaders(s.macHeader(), network, transport);
            if (proto == ETH_P_IP && (flags & ENCAP_L3_IPV6) != 0) Packets.setProtocol(p, ETH_P_IPV6);
            else if (proto == ETH_P_IPV6 && (flags & ENCAP_L3_IPV4) != 0) Packets.setProtocol(p, ETH_P_IP);
        }
        return 0;
    }

    /**
     * bpf_skb_net_hdr_push: len zero bytes at off (the first off bytes move down), the mac and network headers
     * with them (the transport header too while it equals the network header); false when the frame is full.
     */
    static boolean netHdrPush(HelperCall call, PacketBuffer p, long off, long len) {
        long old = p.data();
        if (!Packets.moveSkb(call, p, old - len, p.dataEnd())) return false;
        byte[] head = NativeMemory.read(old, (int) off);
        NativeMemory.write(p.data(), head, 0, head.length);
        NativeMemory.setMemory(p.data() + off, len, (byte) 0);
        shiftHeaders(p.skb(), -len);
        return true;
    }

    /** bpf_skb_net_hdr_pop: removes len bytes at off; false (-ENOMEM: pskb_may_pull) when off + len is past the packet. */
    static boolean netHdrPop(HelperCall call, PacketBuffer p, long off, long len) {
        if (off + len > p.length()) return false;
        long old = p.data();
        byte[] head = NativeMemory.read(old, (int) off);
        Packets.moveSkb(call, p, old + len, p.dataEnd()); // shorter: always fits
        NativeMemory.write(p.data(), head, 0, head.length);
        shiftHeaders(p.skb(), len);
        return true;
    }

    private static void shiftHeaders(SkbState s, long by) {
        boolean transSame = s.transportHeader() == s.networkHeader();
        long network = s.networkHeader() + by;
        s.setHeaders(s.macHeader() + by, network, transSame ? network : s.transportHeader());
    }

    /** bpf_skb_net_shrink: bpf_skb_net_hdr_pop of len bytes at off; the decap flags set skb->protocol. */
    private static long shrink(HelperCall call, PacketBuffer p, long off, long len, long flags, int proto) {
        if ((flags & ~(ADJ_ROOM_FIXED_GSO | DECAP_L3_MASK | NO_CSUM_RESET)) != 0) return EINVAL;
        if (!netHdrPop(call, p, off, len)) return ENOMEM;
        if (proto == ETH_P_IP && (flags & DECAP_L3_IPV6) != 0) Packets.setProtocol(p, ETH_P_IPV6);
        else if (proto == ETH_P_IPV6 && (flags & DECAP_L3_IPV4) != 0) Packets.setProtocol(p, ETH_P_IP);
        return 0;
    }
}
