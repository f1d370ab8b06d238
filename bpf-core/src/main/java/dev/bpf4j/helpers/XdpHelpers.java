package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;

import static dev.bpf4j.helpers.Packets.EACCES;
import static dev.bpf4j.helpers.Packets.EINVAL;
import static dev.bpf4j.helpers.Packets.ETH_HLEN;

/**
 * {@code bpf_xdp_adjust_head}, {@code _meta} and {@code _tail} (net/core/filter.c) over the test run's
 * xdp_buff ({@link PacketBuffer}): they move {@code data}, {@code data_meta} and {@code data_end} within
 * the frame, never below {@code data_hard_start + sizeof(struct xdp_frame)} (the kernel keeps the frame
 * descriptor there) nor past {@code xdp_data_hard_end}, and the packet keeps at least ETH_HLEN bytes.
 * Each move rewrites the ctx fields and the run's packet region; the program must load data and
 * data_end again, as Linux's verifier makes it.
 */
final class XdpHelpers {
    private XdpHelpers() {}

    /** sizeof(struct xdp_frame) on 64-bit kernels. */
    static final int XDP_FRAME_SIZE = 40;

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.XDP_ADJUST_HEAD, "bpf_xdp_adjust_head", XdpHelpers::adjustHead);
        b.addForward(HelperIds.XDP_ADJUST_META, "bpf_xdp_adjust_meta", XdpHelpers::adjustMeta);
        b.addForward(HelperIds.XDP_ADJUST_TAIL, "bpf_xdp_adjust_tail", XdpHelpers::adjustTail);
        b.addForward(HelperIds.XDP_GET_BUFF_LEN, "bpf_xdp_get_buff_len",
                (call, r1, r2, r3, r4, r5) -> Packets.of(call, "bpf_xdp_get_buff_len", r1, PacketBuffer.Kind.XDP).length());
        b.addForward(HelperIds.XDP_LOAD_BYTES, "bpf_xdp_load_bytes", (call, r1, r2, r3, r4, r5) -> xdpBytes(call, r1, r2, r3, r4, false));
        b.addForward(HelperIds.XDP_STORE_BYTES, "bpf_xdp_store_bytes", (call, r1, r2, r3, r4, r5) -> xdpBytes(call, r1, r2, r3, r4, true));
    }

    /**
     * bpf_xdp_load_bytes / bpf_xdp_store_bytes(xdp, u32 offset, buf, u32 len), through bpf_xdp_pointer:
     * -EFAULT for an offset or length above 0xffff, -EINVAL past the packet (no fragments here).
     */
    private static long xdpBytes(HelperCall call, long r1, long r2, long buf, long r4, boolean store) {
        String helper = store ? "bpf_xdp_store_bytes" : "bpf_xdp_load_bytes";
        PacketBuffer p = Packets.of(call, helper, r1, PacketBuffer.Kind.XDP);
        long offset = r2 & 0xffffffffL, len = r4 & 0xffffffffL;
        SkbHelpers.memoryArgument(call, helper + " buf (r3)", buf, len, !store);
        if (offset > 0xffff || len > 0xffff) return Packets.EFAULT;
        if (offset + len > p.length()) return EINVAL;
        byte[] bytes = NativeMemory.read(store ? buf : p.data() + offset, (int) len);
        NativeMemory.write(store ? p.data() + offset : buf, bytes, 0, bytes.length);
        return 0;
    }

    /** bpf_xdp_adjust_head(xdp, int offset): data += offset, the metadata moving with it. */
    static long adjustHead(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_xdp_adjust_head", r1, PacketBuffer.Kind.XDP);
        int offset = (int) r2;
        long metalen = p.data() - p.dataMeta();
        long data = p.data() + offset;
        if (data < p.hardStart() + XDP_FRAME_SIZE + metalen || data > p.dataEnd() - ETH_HLEN) return EINVAL;
        if (metalen != 0) { // memmove
            byte[] meta = NativeMemory.read(p.dataMeta(), (int) metalen);
            NativeMemory.write(p.dataMeta() + offset, meta, 0, meta.length);
        }
        p.move(call, p.dataMeta() + offset, data, p.dataEnd());
        return 0;
    }

    /** bpf_xdp_adjust_meta(xdp, int offset): data_meta += offset; the metadata must stay a multiple of 4 bytes. */
    static long adjustMeta(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_xdp_adjust_meta", r1, PacketBuffer.Kind.XDP);
        long meta = p.dataMeta() + (int) r2;
        if (meta < p.hardStart() + XDP_FRAME_SIZE || meta > p.data()) return EINVAL;
        if (((p.data() - meta) & 3) != 0) return EACCES; // xdp_metalen_invalid
        p.move(call, meta, p.data(), p.dataEnd());
        return 0;
    }

    /** bpf_xdp_adjust_tail(xdp, int offset): data_end += offset; grown bytes are zeroed. */
    static long adjustTail(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_xdp_adjust_tail", r1, PacketBuffer.Kind.XDP);
        int offset = (int) r2;
        long end = p.dataEnd() + offset;
        if (end > p.hardEnd() || end < p.data() + ETH_HLEN) return EINVAL;
        if (offset > 0) NativeMemory.setMemory(p.dataEnd(), offset, (byte) 0);
        p.move(call, p.dataMeta(), p.data(), end);
        return 0;
    }
}
