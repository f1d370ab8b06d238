package dev.bpf4j.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** Deterministic inputs for the workloads: seeded random bytes and one realistic TCP packet. */
public final class WorkloadInputs {
    private WorkloadInputs() {}

    public static byte[] randomBytes(int length, long seed) {
        byte[] b = new byte[length];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) b[i] = (byte) random.nextInt(256);
        return b;
    }

    /**
     * A valid 64-byte Ethernet frame: IPv4 (IHL 5, DF, TTL 64, correct header checksum) carrying
     * TCP 192.168.1.10:443 -> 10.0.0.1:51514 (data offset 5, PSH|ACK, correct checksum) and 10
     * bytes of payload.
     */
    public static byte[] tcpPacket() {
        byte[] payload = "HTTP/1.1 2".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuffer p = ByteBuffer.allocate(14 + 20 + 20 + payload.length); // big-endian: network order
        // Ethernet
        p.put(new byte[] {0x02, 0x42, (byte) 0xac, 0x11, 0x00, 0x02}); // destination MAC
        p.put(new byte[] {0x02, 0x42, (byte) 0xac, 0x11, 0x00, 0x01}); // source MAC
        p.putShort((short) 0x0800);                                     // EtherType IPv4
        // IPv4
        int ip = p.position();
        p.put((byte) 0x45).put((byte) 0);                               // version 4, IHL 5, DSCP 0
        p.putShort((short) (20 + 20 + payload.length));                 // total length
        p.putShort((short) 0x1c46).putShort((short) 0x4000);            // id, flags DF
        p.put((byte) 64).put((byte) 6).putShort((short) 0);             // TTL, protocol TCP, checksum later
        p.put(new byte[] {(byte) 192, (byte) 168, 1, 10});              // source address
        p.put(new byte[] {10, 0, 0, 1});                                // destination address
        // TCP
        int tcp = p.position();
        p.putShort((short) 443).putShort((short) 51514);                // ports
        p.putInt(0x6b8b4567).putInt(0x327b23c6);                        // seq, ack
        p.put((byte) 0x50).put((byte) 0x18);                            // data offset 5, PSH|ACK
        p.putShort((short) 501).putShort((short) 0).putShort((short) 0); // window, checksum later, urgent
        p.put(payload);
        byte[] b = p.array();
        p.putShort(ip + 10, (short) checksum(b, ip, 20, 0));
        long pseudo = sum(b, ip + 12, 8, 0) + 6 + (20 + payload.length);    // addresses, protocol, TCP length
        p.putShort(tcp + 16, (short) checksum(b, tcp, 20 + payload.length, pseudo));
        return b;
    }

    /** The Internet checksum (RFC 1071) of {@code b[off, off+len)} plus an initial sum. */
    static int checksum(byte[] b, int off, int len, long initial) {
        long s = sum(b, off, len, initial);
        while ((s >>> 16) != 0) s = (s & 0xffff) + (s >>> 16);
        return (int) (~s & 0xffff);
    }

    private static long sum(byte[] b, int off, int len, long s) {
        for (int i = 0; i < len; i += 2) {
            int hi = b[off + i] & 0xff, lo = i + 1 < len ? b[off + i + 1] & 0xff : 0;
            s += (hi << 8) | lo;
        }
        return s;
    }
}
