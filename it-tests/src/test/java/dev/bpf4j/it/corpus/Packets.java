package dev.bpf4j.it.corpus;

import java.nio.ByteBuffer;

/** Test frames: Ethernet + IPv4/UDP, IPv4/TCP, IPv6, ARP, with correct IPv4 header checksums. */
final class Packets {
    private Packets() {}

    static final byte[] DST = {0x02, 0, 0, 0, 0, 0x0b}, SRC = {0x02, 0, 0, 0, 0, 0x0a};

    static byte[] ipv4(int proto, int sport, int dport, int ttl, int payload) {
        int l4 = proto == 6 ? 20 : 8;
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + l4 + payload);
        b.put(DST).put(SRC).putShort((short) 0x0800);
        int ip = b.position();
        b.put((byte) 0x45).put((byte) 0).putShort((short) (20 + l4 + payload)).putShort((short) 0x1234).putShort((short) 0x4000)
                .put((byte) ttl).put((byte) proto).putShort((short) 0).putInt(0x0a000001).putInt(0x0a000002);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) sum += (b.getShort(ip + i) & 0xffff);
        while ((sum >>> 16) != 0) sum = (sum & 0xffff) + (sum >>> 16);
        b.putShort(ip + 10, (short) ~sum);
        b.putShort((short) sport).putShort((short) dport);
        if (proto == 6) b.putInt(1).putInt(0).putShort((short) 0x5010).putShort((short) 1024).putInt(0);
        else b.putShort((short) (8 + payload)).putShort((short) 0);
        for (int i = 0; i < payload; i++) b.put((byte) (i * 7 + 1));
        return b.array();
    }

    static byte[] udp(int dport, int payload) { return ipv4(17, 40000, dport, 64, payload); }

    static byte[] tcp(int dport, int ttl) { return ipv4(6, 40001, dport, ttl, 10); }

    static byte[] ipv6(int nexthdr, int hopLimit) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8);
        b.put(DST).put(SRC).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 8).put((byte) nexthdr).put((byte) hopLimit);
        for (int i = 0; i < 32; i++) b.put((byte) (i < 16 ? 0x20 + i : 0x40 + i));
        b.putLong(0x1122334455667788L);
        return b.array();
    }

    static byte[] arp() {
        ByteBuffer b = ByteBuffer.allocate(42);
        b.put(new byte[] {-1, -1, -1, -1, -1, -1}).put(SRC).putShort((short) 0x0806);
        b.putShort((short) 1).putShort((short) 0x0800).put((byte) 6).put((byte) 4).putShort((short) 1);
        return b.array();
    }

    static byte[] le(long... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (long w : words) b.putLong(w);
        return b.array();
    }

    static byte[] le32(int... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int w : words) b.putInt(w);
        return b.array();
    }
}
