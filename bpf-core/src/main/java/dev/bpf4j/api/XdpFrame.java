package dev.bpf4j.api;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.PacketContext;

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
 * The buffer is laid out as {@code bpf_prog_test_run_xdp} lays it out: a 4096-byte frame
 * ({@code frame_sz}) of headroom, up to {@link #MAX_DATA} bytes of packet and the
 * {@code skb_shared_info} tailroom, so {@code bpf_xdp_adjust_head/_meta} may move {@code data} down to
 * {@code data_hard_start + sizeof(struct xdp_frame)} and {@code bpf_xdp_adjust_tail} may grow the packet
 * up to {@link #MAX_DATA} bytes from the original {@code data} ({@link dev.bpf4j.runtime.PacketBuffer}).
 * {@code data_out} is {@code [data_meta, data_end)} after the run, as the kernel copies it.
 */
final class XdpFrame extends RunFrame {
    static final int SIZE = 24, HEADROOM = 256, ETH_HLEN = 14, LOOPBACK_IFINDEX = 1;
    /**
     * {@code max_data_sz} of bpf_prog_test_run_xdp: a 4096-byte frame less the headroom and
     * {@code SKB_DATA_ALIGN(sizeof(struct skb_shared_info))} (320 bytes on x86-64).
     */
    static final int FRAME_SIZE = 4096, SHARED_INFO = 320, MAX_DATA = FRAME_SIZE - HEADROOM - SHARED_INFO;
    private static final int CTX_AREA = 64;
    private final int length;
    private final PacketBuffer buffer;

    XdpFrame(String program, byte[] data, byte[] ctxIn) {
        super(CTX_AREA + HEADROOM + Math.max(MAX_DATA, checkData(program, data).length), true);
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
        // packets longer than max_data_sz are multi-buffer in the kernel; here they get no tailroom
        buffer = new PacketBuffer(PacketBuffer.Kind.XDP, ctx, PacketContext.XDP_MD, base() + CTX_AREA,
                packet + Math.max(MAX_DATA, length), packet, packet + length, true, 0, 0);
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
        return List.of(new MemoryRegion("xdp_md", base(), SIZE, false), buffer.region());
    }

    @Override PacketBuffer packetBuffer() { return buffer; }

    @Override byte[] dataOut() { return NativeMemory.read(buffer.dataMeta(), (int) (buffer.dataEnd() - buffer.dataMeta())); }
}
