package dev.bpf4j.helpers;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * skb_get_hash's flow hash (net/core/flow_dissector.c {@code __skb_get_hash}): the packet is dissected from its
 * network header as {@code flow_keys_dissector} does with FLOW_DISSECTOR_F_STOP_AT_FLOW_LABEL (n_proto, the first
 * VLAN id, IPv4/IPv6 addresses, ip_proto, an IPv6 flow label — which ends the dissection, so such a flow's ports
 * are not hashed — and the ports of TCP, UDP, UDP-Lite, DCCP, SCTP and ESP, of AH 4 bytes in; none for IPv4
 * fragments); {@code __flow_hash_consistentify} orders addresses and ports so both directions of a flow hash
 * alike; SipHash-2-4 keyed by a secret drawn at start-up (Linux: {@code hashrnd}, random at boot) gives the hash,
 * 0 becoming 1. The value therefore differs from Linux's by design; its properties are Linux's.
 */
final class FlowHash {
    private FlowHash() {}

    private static final long K0, K1;

    static {
        SecureRandom r = new SecureRandom();
        K0 = r.nextLong();
        K1 = r.nextLong();
    }

    static final int ETH_P_IP = 0x0800, ETH_P_IPV6 = 0x86dd, ETH_P_8021Q = 0x8100, ETH_P_8021AD = 0x88a8;

    /** The flow hash of {@code p}'s packet (protocol {@code proto}, host order). */
    static int of(PacketBuffer p, int proto) {
        long data = p.data(), end = p.dataEnd();
        long off = p.networkHeader();
        int vlanId = p.skb() != null && p.skb().vlanPresent() ? p.skb().vlanTci() & 0xfff : -1;
        // in-packet VLAN tags (skb->protocol is the tag's ethertype when the tag is in the packet)
        while ((proto == ETH_P_8021Q || proto == ETH_P_8021AD) && off + 4 <= end) {
            if (vlanId < 0) vlanId = be16(off) & 0xfff;
            proto = be16(off + 2);
            off += 4;
        }
        ByteBuffer k = ByteBuffer.allocate(64).order(ByteOrder.BIG_ENDIAN);
        k.putShort((short) proto);
        int ipProto = 0, label = 0;
        long ports = -1; // none
        byte[] src = null, dst = null;
        if (proto == ETH_P_IP && off + 20 <= end) {
            int ihl = (NativeMemory.getByte(off) & 0x0f) * 4;
            if (ihl >= 20 && off + ihl <= end) {
                ipProto = NativeMemory.getByte(off + 9) & 0xff;
                src = NativeMemory.read(off + 12, 4);
                dst = NativeMemory.read(off + 16, 4);
                boolean fragment = (be16(off + 6) & 0x3fff) != 0; // MF or a fragment offset
                if (!fragment) ports = ports(ipProto, off + ihl, end);
            }
        } else if (proto == ETH_P_IPV6 && off + 40 <= end) {
            ipProto = NativeMemory.getByte(off + 6) & 0xff;
            label = (int) (Integer.toUnsignedLong(Integer.reverseBytes(NativeMemory.getInt(off))) & 0xfffff);
            src = NativeMemory.read(off + 8, 16);
            dst = NativeMemory.read(off + 24, 16);
            if (label == 0) ports = ports(ipProto, off + 40, end);
        }
        k.put((byte) ipProto).put((byte) 0).putInt(label).putInt(vlanId);
        if (src != null) {
            // __flow_hash_consistentify: the lower address first (IPv4: as u32 difference; IPv6: memcmp)
            boolean swap = src.length == 4 ? (be32(dst) - be32(src)) < 0 : java.util.Arrays.compareUnsigned(dst, src) < 0;
            k.put(swap ? dst : src).put(swap ? src : dst);
        }
        if (ports >= 0) {
            int s = (int) (ports >>> 16), d = (int) (ports & 0xffff);
            // compared as the __be16 values' host (little-endian) u16s, as the kernel does on x86
            if (Short.toUnsignedInt(Short.reverseBytes((short) d)) < Short.toUnsignedInt(Short.reverseBytes((short) s))) {
                int t = s; s = d; d = t;
            }
            k.putShort((short) s).putShort((short) d);
        }
        byte[] keys = java.util.Arrays.copyOf(k.array(), k.position());
        int h = (int) siphash(keys);
        return h == 0 ? 1 : h;
    }

    /** skb_flow_get_ports: the 4 bytes at proto_ports_offset, or -1 (none, or not in the packet). */
    private static long ports(int ipProto, long l4, long end) {
        int at;
        switch (ipProto) {
            case 6: case 17: case 33: case 50: case 132: case 136: at = 0; break; // TCP UDP DCCP ESP SCTP UDPLITE
            case 51: at = 4; break; // AH
            default: return -1;
        }
        if (l4 + at + 4 > end) return -1;
        return Integer.toUnsignedLong(Integer.reverseBytes(NativeMemory.getInt(l4 + at)));
    }

    private static int be16(long a) { return Short.toUnsignedInt(Short.reverseBytes(NativeMemory.getShort(a))); }

    private static int be32(byte[] b) { return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff); }

    /** SipHash-2-4 (Aumasson, Bernstein), 64-bit output. */
    static long siphash(byte[] m) {
        long v0 = 0x736f6d6570736575L ^ K0, v1 = 0x646f72616e646f6dL ^ K1, v2 = 0x6c7967656e657261L ^ K0, v3 = 0x7465646279746573L ^ K1;
        int n = m.length, blocks = n / 8;
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < blocks; i++) {
            long x = b.getLong(i * 8);
            v3 ^= x;
            for (int r = 0; r < 2; r++) { long[] v = round(v0, v1, v2, v3); v0 = v[0]; v1 = v[1]; v2 = v[2]; v3 = v[3]; }
            v0 ^= x;
        }
        long last = (long) n << 56;
        for (int i = 0; i < n % 8; i++) last |= (m[blocks * 8 + i] & 0xffL) << (8 * i);
        v3 ^= last;
        for (int r = 0; r < 2; r++) { long[] v = round(v0, v1, v2, v3); v0 = v[0]; v1 = v[1]; v2 = v[2]; v3 = v[3]; }
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) { long[] v = round(v0, v1, v2, v3); v0 = v[0]; v1 = v[1]; v2 = v[2]; v3 = v[3]; }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    private static long[] round(long v0, long v1, long v2, long v3) {
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        return new long[] {v0, v1, v2, v3};
    }
}
