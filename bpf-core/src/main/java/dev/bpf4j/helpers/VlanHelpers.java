package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.SkbState;

import static dev.bpf4j.helpers.Packets.EINVAL;
import static dev.bpf4j.helpers.Packets.ENOMEM;

/**
 * {@code bpf_skb_vlan_push} and {@code bpf_skb_vlan_pop} (net/core/filter.c over skb_vlan_push/_pop of
 * net/core/skbuff.c): the sk_buff carries one VLAN tag out of band ({@code __vlan_hwaccel_put_tag}, seen
 * through {@code __sk_buff.vlan_present/_tci/_proto}); pushing while one is there first writes that one
 * into the packet after the MAC addresses, popping takes the out-of-band tag, else the packet's, and moves
 * the next tag of the packet out of band.
 */
final class VlanHelpers {
    private VlanHelpers() {}

    static final int ETH_P_8021Q = 0x8100, ETH_P_8021AD = 0x88a8, VLAN_HLEN = 4, ETH_ALEN = 6;
    private static final int ETH_P_802_3 = 0x0001, ETH_P_802_2 = 0x0004, ETH_P_802_3_MIN = 0x0600;

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.SKB_VLAN_PUSH, "bpf_skb_vlan_push", VlanHelpers::push);
        b.addForward(HelperIds.SKB_VLAN_POP, "bpf_skb_vlan_pop", VlanHelpers::pop);
    }

    /** bpf_skb_vlan_push(skb, __be16 vlan_proto, u16 vlan_tci): a protocol other than 802.1Q/802.1ad means 802.1Q. */
    static long push(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_vlan_push", r1);
        int proto = Short.reverseBytes((short) r2) & 0xffff;
        if (proto != ETH_P_8021Q && proto != ETH_P_8021AD) proto = ETH_P_8021Q;
        long ret = skbVlanPush(call, p, proto, (int) r3);
        p.skb().resetMacLen(); // whatever skb_vlan_push returned
        return ret;
    }

    /** skb_vlan_push: a tag already out of band goes into the packet first (__vlan_insert_tag). */
    private static long skbVlanPush(HelperCall call, PacketBuffer p, int proto, int tci) {
        SkbState s = p.skb();
        if (s.vlanPresent()) {
            if (p.data() != s.macHeader()) return EINVAL;
            long old = p.data(), data = old - VLAN_HLEN;
            if (!Packets.moveSkb(call, p, data, p.dataEnd())) return ENOMEM;
            byte[] macs = NativeMemory.read(old, 2 * ETH_ALEN);
            NativeMemory.write(data, macs, 0, macs.length);
            NativeMemory.putShort(data + 2 * ETH_ALEN, Short.reverseBytes((short) s.vlanProto()));
            NativeMemory.putShort(data + 2 * ETH_ALEN + 2, Short.reverseBytes((short) s.vlanTci()));
            Packets.setProtocol(p, s.vlanProto());
            s.setHeaders(s.macHeader() - VLAN_HLEN, s.networkHeader() - VLAN_HLEN, s.transportHeader());
        }
        putTag(p, true, proto, tci);
        return 0;
    }

    /** bpf_skb_vlan_pop(skb). */
    static long pop(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_vlan_pop", r1);
        if (p.skb().vlanPresent()) {
            putTag(p, false, 0, 0);
        } else {
            if (!isVlan(Packets.protocol(p))) return 0;
            long err = popFromPacket(call, p, new int[1]);
            if (err != 0) return err;
        }
        int proto = Packets.protocol(p);
        if (!isVlan(proto)) return 0;
        int[] tci = new int[1];
        long err = popFromPacket(call, p, tci);
        if (err != 0) return err;
        putTag(p, true, proto, tci[0]);
        return 0;
    }

    /** __skb_vlan_pop: takes the tag after the MAC addresses out of the packet; skb->protocol becomes what it carried. */
    private static long popFromPacket(HelperCall call, PacketBuffer p, int[] tci) {
        SkbState s = p.skb();
        if (p.data() != s.macHeader()) return EINVAL;
        if (p.length() < Packets.ETH_HLEN + VLAN_HLEN) return ENOMEM; // skb_ensure_writable(skb, VLAN_ETH_HLEN)
        long data = p.data(), vhdr = data + Packets.ETH_HLEN;
        tci[0] = Short.reverseBytes(NativeMemory.getShort(vhdr)) & 0xffff;
        int inner = Short.reverseBytes(NativeMemory.getShort(vhdr + 2)) & 0xffff;
        // vlan_set_encap_proto: below 0x600 it is a length: raw 802.3 (0xffff follows) or 802.2 LLC
        int proto = inner >= ETH_P_802_3_MIN ? inner
                : (data + 20 <= p.hardEnd() && NativeMemory.getShort(vhdr + VLAN_HLEN) == (short) 0xffff) ? ETH_P_802_3 : ETH_P_802_2;
        byte[] macs = NativeMemory.read(data, 2 * ETH_ALEN);
        NativeMemory.write(data + VLAN_HLEN, macs, 0, macs.length);
        Packets.setProtocol(p, proto);
        Packets.moveSkb(call, p, data + VLAN_HLEN, p.dataEnd()); // shorter: always fits
        long mac = s.macHeader() + VLAN_HLEN;
        long network = s.networkHeader() - p.data() < Packets.ETH_HLEN ? p.data() + Packets.ETH_HLEN : s.networkHeader();
        s.setHeaders(mac, network, s.transportHeader());
        s.resetMacLen();
        return 0;
    }

    private static boolean isVlan(int proto) { return proto == ETH_P_8021Q || proto == ETH_P_8021AD; }

    /** __vlan_hwaccel_put_tag / __vlan_hwaccel_clear_tag, mirrored into the __sk_buff's vlan fields. */
    private static void putTag(PacketBuffer p, boolean present, int proto, int tci) {
        p.skb().setVlan(present, proto, tci);
        NativeMemory.putInt(p.ctx() + Packets.SKB_VLAN_PRESENT, present ? 1 : 0);
        NativeMemory.putInt(p.ctx() + Packets.SKB_VLAN_TCI, p.skb().vlanTci());
        NativeMemory.putInt(p.ctx() + Packets.SKB_VLAN_PROTO, Short.reverseBytes((short) p.skb().vlanProto()) & 0xffff);
    }
}
