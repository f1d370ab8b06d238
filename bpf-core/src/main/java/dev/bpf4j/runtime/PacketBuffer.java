package dev.bpf4j.runtime;

/**
 * The packet of one test run as the kernel's {@code struct xdp_buff} / {@code struct sk_buff} holds it:
 * the buffer it may grow into and where {@code data_meta}, {@code data} and {@code data_end} point now.
 * The helpers that read or move the packet (net/core/filter.c: {@code bpf_skb_load_bytes},
 * {@code bpf_xdp_adjust_head}, ...) work on it; the program sees it through its ctx fields, which
 * {@link #move} rewrites, and through the run's packet region, which {@link #move} replaces in the
 * engine's region table ({@link HelperCall#replaceRegion}). One object per run frame: helpers change it,
 * engines never do.
 */
public final class PacketBuffer {
    /** Which kernel structure the ctx stands for: it decides the helpers' rules and the verdicts of redirects. */
    public enum Kind { XDP, SKB }

    private final Kind kind;
    private final long ctx;
    private final PacketContext fields;
    private final long hardStart;
    private final long hardEnd;
    private final boolean writable;
    private final SkbState skb;
    private long data, dataEnd, dataMeta;
    private MemoryRegion region;
    private int version;
    /** sk_buff only: CHECKSUM_NONE (0) or CHECKSUM_UNNECESSARY (1), and csum_level (0-3). */
    private int ipSummed, csumLevel;

    /**
     * @param ctx       the ctx address (r1 at entry); its packet fields are at {@code fields}' offsets
     * @param hardStart {@code data_hard_start}: the first byte of headroom
     * @param hardEnd   the end of the room {@code data_end} may grow into ({@code xdp_data_hard_end})
     * @param macHeader, networkHeader sk_buff only (0 for XDP): where {@code bpf_skb_load_bytes_relative} starts
     */
    public PacketBuffer(Kind kind, long ctx, PacketContext fields, long hardStart, long hardEnd, long data, long dataEnd,
                        boolean writable, long macHeader, long networkHeader) {
        if (!(hardStart <= data && data <= dataEnd && dataEnd <= hardEnd)) {
            throw new IllegalArgumentException("packet bounds out of order: " + hardStart + " " + data + " " + dataEnd + " " + hardEnd);
        }
        this.kind = kind;
        this.ctx = ctx;
        this.fields = fields;
        this.hardStart = hardStart;
        this.hardEnd = hardEnd;
        this.writable = writable;
        this.skb = kind == Kind.SKB ? new SkbState(macHeader, networkHeader) : null;
        this.data = data;
        this.dataEnd = dataEnd;
        this.dataMeta = data;
        this.region = regionOf(data, dataEnd);
    }

    public Kind kind() { return kind; }
    public long ctx() { return ctx; }
    public long hardStart() { return hardStart; }
    public long hardEnd() { return hardEnd; }
    public long data() { return data; }
    public long dataEnd() { return dataEnd; }
    public long dataMeta() { return dataMeta; }
    /** {@code skb->len} / the XDP packet's length: {@code data_end - data}. */
    public long length() { return dataEnd - data; }
    public boolean writable() { return writable; }
    /** sk_buff only (0 for XDP). */
    public long macHeader() { return skb == null ? 0 : skb.macHeader(); }
    public long networkHeader() { return skb == null ? 0 : skb.networkHeader(); }
    /** The sk_buff's header offsets, encapsulation and VLAN tag; null for XDP. */
    public SkbState skb() { return skb; }
    public int ipSummed() { return ipSummed; }
    public int csumLevel() { return csumLevel; }

    /** The region programs access the packet through: {@code [data_meta, data_end)}. */
    public MemoryRegion region() { return region; }

    /** Moves on with every {@link #move}: a run frame rebuilds its run context when it changed. */
    public int version() { return version; }

    public void setChecksum(int ipSummed, int csumLevel) {
        this.ipSummed = ipSummed;
        this.csumLevel = csumLevel;
    }

    /**
     * Sets new bounds (the caller checked them against the kernel's limits), rewrites the ctx's
     * data, data_end and data_meta fields and swaps the packet region in the running engine's table.
     */
    public void move(HelperCall call, long newDataMeta, long newData, long newDataEnd) {
        if (!(hardStart <= newDataMeta && newDataMeta <= newData && newData <= newDataEnd && newDataEnd <= hardEnd)) {
            throw new IllegalStateException("packet moved out of its buffer");
        }
        MemoryRegion old = region;
        dataMeta = newDataMeta;
        data = newData;
        dataEnd = newDataEnd;
        region = regionOf(newDataMeta, newDataEnd);
        version++;
        NativeMemory.putInt(ctx + fields.dataOffset(), (int) newData);
        NativeMemory.putInt(ctx + fields.dataEndOffset(), (int) newDataEnd);
        if (fields.dataMetaOffset() >= 0) NativeMemory.putInt(ctx + fields.dataMetaOffset(), (int) newDataMeta);
        if (call != null && !old.equals(region)) {
            call.replaceRegion(old, region);
            call.packetDataMoved(newData, newDataEnd - newData);
        }
    }

    private MemoryRegion regionOf(long from, long to) { return new MemoryRegion("packet", from, to - from, writable); }
}
