package dev.bpf4j.api;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.PacketContext;

import java.util.List;

/**
 * {@code struct __sk_buff} (include/uapi/linux/bpf.h, 192 bytes) over a packet, filled the way
 * {@code bpf_prog_test_run_skb} (net/bpf/test_run.c) fills it on the loopback device:
 * {@code eth_type_trans} gives {@code protocol} and {@code pkt_type}; tc programs ("l2") see the
 * packet from its Ethernet header, socket filters from the network header (14 bytes in);
 * {@code ctx_in} may set only the fields the kernel accepts (mark, priority, ingress_ifindex, ifindex,
 * cb, tstamp, wire_len, gso_segs, gso_size, hwtstamp). After the run the kernel copies back only
 * mark, priority, ingress_ifindex, ifindex, tstamp, cb, wire_len, gso_segs and hwtstamp, and for a
 * socket filter zeroes the 14 bytes in front of the network header in {@code data_out}: so does this.
 */
final class SkbFrame extends RunFrame {
    static final int SIZE = 192;
    static final int LEN = 0, PKT_TYPE = 4, MARK = 8, PROTOCOL = 16, PRIORITY = 32, INGRESS_IFINDEX = 36,
            IFINDEX = 40, CB = 48, CB_END = 68, DATA = 76, DATA_END = 80, DATA_META = 140, TSTAMP = 152,
            WIRE_LEN = 160, GSO_SEGS = 164, GSO_SIZE = 176, TSTAMP_TYPE = 180, HWTSTAMP = 184;
    /**
     * BPF_SKB_MAX_LEN (SKB_MAX_ALLOC: 16 KiB less the skb_shared_info): how long bpf_skb_change_head/_tail and
     * bpf_skb_adjust_room may make the packet. The kernel reallocates the skb head to grow it; here the frame
     * has that much headroom and tailroom from the start (untouched pages of the mapping cost nothing).
     */
    static final int MAX_LEN = 16384 - 320;
    private static final int ETH_HLEN = 14, HEADROOM = MAX_LEN + 256, CTX_AREA = 256, GSO_MAX_SEGS = 65535,
            GSO_LEGACY_MAX_SIZE = 65536, LOOPBACK_IFINDEX = 1;
    private static final int PACKET_HOST = 0, PACKET_MULTICAST = 2, PACKET_OTHERHOST = 3;
    private final int size;
    private final boolean l2;
    private final PacketBuffer buffer;

    SkbFrame(String program, byte[] data, byte[] ctxIn, boolean l2) {
        super(CTX_AREA + HEADROOM + checkData(program, data).length + MAX_LEN, true);
        this.size = data.length;
        this.l2 = l2;
        long packet = packet();
        NativeMemory.write(packet, data, 0, size);
        Ctx c = new Ctx(program, "__sk_buff", ctxIn == null ? new byte[0] : ctxIn, SIZE);
        checkCtxIn(program, c);
        int len = l2 ? size : size - ETH_HLEN;
        long wire = c.u32(WIRE_LEN);
        if (wire != 0 && (wire < len || wire > GSO_LEGACY_MAX_SIZE)) {
            throw new IllegalArgumentException(program + ": __sk_buff ctx_in: wire_len " + wire + " is below len " + len + " or too big");
        }
        if (c.u32(GSO_SEGS) > GSO_MAX_SEGS) throw new IllegalArgumentException(program + ": __sk_buff ctx_in: gso_segs > " + GSO_MAX_SEGS);
        long ctx = base();
        long start = l2 ? packet : packet + ETH_HLEN;
        putU32(ctx + LEN, len);
        putU32(ctx + PKT_TYPE, pktType(data));
        putU32(ctx + MARK, c.u32(MARK));
        putU32(ctx + PROTOCOL, protocol(data));
        putU32(ctx + PRIORITY, c.u32(PRIORITY));
        putU32(ctx + INGRESS_IFINDEX, c.u32(INGRESS_IFINDEX));
        putU32(ctx + IFINDEX, c.u32(IFINDEX) != 0 ? c.u32(IFINDEX) : LOOPBACK_IFINDEX);
        for (int off = CB; off < CB_END; off += 4) putU32(ctx + off, c.u32(off));
        putU32(ctx + DATA, start);
        putU32(ctx + DATA_END, packet + size);
        putU32(ctx + DATA_META, start);
        NativeMemory.putLong(ctx + TSTAMP, c.u64(TSTAMP));
        putU32(ctx + WIRE_LEN, wire != 0 ? wire : len);
        putU32(ctx + GSO_SEGS, c.u32(GSO_SEGS));
        putU32(ctx + GSO_SIZE, c.u32(GSO_SIZE));
        NativeMemory.putLong(ctx + HWTSTAMP, c.u64(HWTSTAMP));
        // mac header at the Ethernet header, network header after it (eth_type_trans, skb_reset_network_header)
        buffer = new PacketBuffer(PacketBuffer.Kind.SKB, ctx, PacketContext.SK_BUFF, base() + CTX_AREA, packet + size + MAX_LEN,
                start, packet + size, l2, packet, packet + ETH_HLEN);
    }

    private static byte[] checkData(String program, byte[] data) {
        if (data == null || data.length < ETH_HLEN) {
            throw new IllegalArgumentException(program + ": an skb run needs data_in of at least " + ETH_HLEN
                    + " bytes (ETH_HLEN), as BPF_PROG_TEST_RUN does");
        }
        return data;
    }

    /** convert___skb_to_skb: every byte outside the accepted fields must be zero (else EINVAL). */
    private static void checkCtxIn(String program, Ctx c) {
        int[][] refused = {{0, MARK}, {MARK + 4, PRIORITY}, {IFINDEX + 4, CB}, {CB_END, TSTAMP}, {GSO_SEGS + 4, GSO_SIZE},
                {TSTAMP_TYPE, HWTSTAMP}};
        for (int[] r : refused) {
            if (!c.zero(r[0], r[1])) {
                throw new IllegalArgumentException(program + ": __sk_buff ctx_in sets bytes " + r[0] + ".." + (r[1] - 1)
                        + ", which BPF_PROG_TEST_RUN refuses (only mark, priority, ingress_ifindex, ifindex, cb, tstamp,"
                        + " wire_len, gso_segs, gso_size, hwtstamp may be set)");
            }
        }
    }

    /**
     * eth_type_trans on the loopback device: its dev_addr and its broadcast address are both
     * 00:00:00:00:00:00 (loopback_setup sets no broadcast), so ff:ff:ff:ff:ff:ff counts as multicast.
     */
    private static int pktType(byte[] d) {
        boolean zero = true;
        for (int i = 0; i < 6; i++) zero &= d[i] == 0;
        if (zero) return PACKET_HOST;
        return (d[0] & 1) != 0 ? PACKET_MULTICAST : PACKET_OTHERHOST;
    }

    /** eth_type_trans's skb->protocol, a big-endian u16 as the __u32 field holds it. */
    private static long protocol(byte[] d) {
        int proto = (d[12] & 0xff) << 8 | (d[13] & 0xff);
        if (proto < 0x600) {
            // 802.3 frame: raw IPX (0xFFFF) or 802.2 LLC
            boolean raw = d.length >= 16 && d[14] == (byte) 0xff && d[15] == (byte) 0xff;
            proto = raw ? 0x0001 : 0x0004;
        }
        return Integer.reverseBytes(proto) >>> 16;
    }

    private long packet() { return base() + CTX_AREA + HEADROOM; }

    @Override long ctx() { return base(); }

    /** skb->data and skb->len as the run left them (tc helpers may move the packet). */
    @Override long packetStart() { return buffer.data(); }

    @Override long packetLength() { return buffer.length(); }

    @Override List<MemoryRegion> regions() {
        return List.of(new MemoryRegion("__sk_buff", base(), SIZE, true), buffer.region());
    }

    @Override PacketBuffer packetBuffer() { return buffer; }

    /** tc: skb->data for skb->len bytes; socket filters cannot move their packet. */
    @Override byte[] dataOut() {
        if (l2) return NativeMemory.read(buffer.data(), (int) buffer.length());
        byte[] out = NativeMemory.read(packet(), size);
        java.util.Arrays.fill(out, 0, ETH_HLEN, (byte) 0);
        return out;
    }

    /** convert_skb_to___skb: only these fields reach ctx_out. */
    @Override byte[] ctxOut() {
        byte[] in = NativeMemory.read(base(), SIZE);
        byte[] out = new byte[SIZE];
        int[][] copied = {{MARK, 4}, {PRIORITY, 4}, {INGRESS_IFINDEX, 4}, {IFINDEX, 4}, {CB, CB_END - CB}, {TSTAMP, 8},
                {WIRE_LEN, 4}, {GSO_SEGS, 4}, {HWTSTAMP, 8}};
        for (int[] f : copied) System.arraycopy(in, f[0], out, f[0], f[1]);
        return out;
    }
}
