package dev.bpf4j.api;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * {@code struct xdp_md} (include/uapi/linux/bpf.h) over a packet placed as {@code BPF_PROG_TEST_RUN}
 * places it: {@code XDP_PACKET_HEADROOM} (256) bytes before {@code data}, no metadata
 * ({@code data_meta == data}), received on the loopback device's queue 0 ({@code ingress_ifindex} 1).
 *
 * <pre>
 *  0 data  4 data_end  8 data_meta  12 ingress_ifindex  16 rx_queue_index  20 egress_ifindex
 * </pre>
 *
 * The packet keeps its length: bpf4j has no {@code bpf_xdp_adjust_head/tail} yet.
 */
final class XdpFrame extends RunFrame {
    static final int SIZE = 24, HEADROOM = 256, ETH_HLEN = 14, LOOPBACK_IFINDEX = 1;
    private static final int CTX_AREA = 64;
    private final int length;

    XdpFrame(String program, byte[] data, byte[] ctxIn) {
        super(CTX_AREA + HEADROOM + checkData(program, data).length, true);
        this.length = data.length;
        long packet = packet();
        NativeMemory.write(packet, data, 0, data.length);
        long ifindex = LOOPBACK_IFINDEX, rxQueue = 0;
        if (ctxIn != null) {
            Ctx c = new Ctx(program, "xdp_md", ctxIn, SIZE);
            if (c.u32(0) != 0 || c.u32(8) != 0 || (c.u32(4) != 0 && c.u32(4) != data.length)) {
                throw new IllegalArgumentException(program + ": xdp_md ctx_in: data, data_end and data_meta must be 0"
                        + " (metadata in data_in is not supported)");
            }
            if (c.u32(20) != 0) throw new IllegalArgumentException(program + ": xdp_md ctx_in: egress_ifindex must be 0");
            if (c.u32(12) != 0) ifindex = c.u32(12);
            rxQueue = c.u32(16);
        }
        long ctx = base();
        putU32(ctx, packet);
        putU32(ctx + 4, packet + length);
        putU32(ctx + 8, packet);
        putU32(ctx + 12, ifindex);
        putU32(ctx + 16, rxQueue);
    }

    private static byte[] checkData(String program, byte[] data) {
        if (data == null || data.length < ETH_HLEN) {
            throw new IllegalArgumentException(program + ": an XDP run needs data_in of at least " + ETH_HLEN
                    + " bytes (ETH_HLEN), as BPF_PROG_TEST_RUN does");
        }
        return data;
    }

    private long packet() { return base() + CTX_AREA + HEADROOM; }

    @Override long ctx() { return base(); }

    @Override List<MemoryRegion> regions() {
        return List.of(new MemoryRegion("xdp_md", base(), SIZE, false), new MemoryRegion("packet", packet(), length, true));
    }

    @Override byte[] dataOut() { return NativeMemory.read(packet(), length); }
}
