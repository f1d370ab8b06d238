package dev.bpf4j.runtime;

/**
 * Where a kernel-style context (entry r1 = ctx) keeps its packet pointers: {@code __u32 data} at
 * {@code dataOffset}, {@code __u32 data_end} at {@code dataEndOffset} and {@code __u32 data_meta}
 * at {@code dataMetaOffset} (-1: none; the verifier types it), real addresses (bpf4j
 * places such packets below 4 GiB). Only a hint: an engine may use it to prove packet accesses
 * after checking, on every entry, that the run's ctx and packet fit it; it never changes an
 * outcome (docs/jit-performance.md).
 */
public record PacketContext(int dataOffset, int dataEndOffset, int dataMetaOffset) {
    /** {@code struct xdp_md}: data at 0, data_end at 4, data_meta at 8. */
    public static final PacketContext XDP_MD = new PacketContext(0, 4, 8);
    /** {@code struct __sk_buff}: data at 76, data_end at 80, data_meta at 140. */
    public static final PacketContext SK_BUFF = new PacketContext(76, 80, 140);

    /** A context without a {@code data_meta} field. */
    public PacketContext(int dataOffset, int dataEndOffset) { this(dataOffset, dataEndOffset, -1); }

    public PacketContext {
        if (dataOffset < 0 || dataEndOffset < 0 || dataOffset % 4 != 0 || dataEndOffset % 4 != 0
                || dataOffset == dataEndOffset || Math.max(dataOffset, dataEndOffset) > 4092) {
            throw new IllegalArgumentException("packet context offsets must be distinct multiples of 4 in [0, 4092]: "
                    + dataOffset + ", " + dataEndOffset);
        }
    }

    /** Bytes {@code [0, extent())} of the ctx hold both fields. */
    public int extent() { return Math.max(dataOffset, dataEndOffset) + 4; }
}
