package dev.bpf4j.runtime;

/**
 * The negative offsets of {@code LD ABS/IND} (docs/runtime-semantics.md "Legacy packet loads"), as
 * Linux 6.18's {@code bpf_skb_load_helper_{8,16,32}} convert them: {@code SKF_NET_OFF + k} reads
 * {@code k} bytes past the sk_buff's network header, {@code SKF_LL_OFF + k} past its link-layer (mac)
 * header, and every other negative offset fails. Measured on Linux 6.18 with test runs of socket
 * filters (data at the network header, the mac header 14 bytes before it) and tc programs (data at
 * the mac header). The engines compute the offset from {@code data}, then check it as any other.
 */
public final class LegacyPacketOffsets {
    private LegacyPacketOffsets() {}

    /** {@code SKF_NET_OFF} of linux/filter.h. */
    public static final int SKF_NET_OFF = -0x100000;
    /** {@code SKF_LL_OFF} of linux/filter.h. */
    public static final int SKF_LL_OFF = -0x200000;
    /**
     * A header offset from data that no load reaches (any offset plus it is past the packet): the
     * run has no sk_buff, or the header is not inside its buffer.
     */
    public static final long NO_HEADER = 1L << 40;

    /** The network header of {@code buffer} as an offset from {@code data}, or {@link #NO_HEADER}. */
    public static long networkOffset(PacketBuffer buffer, long data) {
        return buffer == null ? NO_HEADER : offset(buffer, buffer.networkHeader(), data);
    }

    /** The mac header of {@code buffer} as an offset from {@code data}, or {@link #NO_HEADER}. */
    public static long macOffset(PacketBuffer buffer, long data) {
        return buffer == null ? NO_HEADER : offset(buffer, buffer.macHeader(), data);
    }

    private static long offset(PacketBuffer buffer, long header, long data) {
        if (buffer.kind() != PacketBuffer.Kind.SKB || header < buffer.hardStart() || header > buffer.dataEnd()) return NO_HEADER;
        return header - data;
    }

    /**
     * The offset from {@code data} that a load at {@code offset} (negative) reads: past the network or
     * the mac header {@code buffer} holds now (null: none), or {@link #NO_HEADER} for any other negative
     * offset ({@code SKF_AD_OFF} included: the ancillary loads are classic BPF only).
     */
    public static long resolve(int offset, PacketBuffer buffer, long data) {
        if (offset >= SKF_NET_OFF) return (long) offset - SKF_NET_OFF + networkOffset(buffer, data);
        if (offset >= SKF_LL_OFF) return (long) offset - SKF_LL_OFF + macOffset(buffer, data);
        return NO_HEADER;
    }
}
