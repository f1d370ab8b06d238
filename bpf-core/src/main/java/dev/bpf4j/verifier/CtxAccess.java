package dev.bpf4j.verifier;

import dev.bpf4j.runtime.ContextRules;

/**
 * The kernel's {@code is_valid_access} of each program type bpf4j runs (net/core/filter.c,
 * kernel/trace/bpf_trace.c, as of Linux 6.18): whether a ctx access of {@code size} bytes at a
 * constant offset is allowed, and what a load from it yields (a packet pointer or a number).
 * An access it refuses is the kernel's {@code invalid bpf_context access off=N size=N}. Without
 * it, a load could read part of a native pointer the ctx holds ({@code __sk_buff+75} straddles
 * {@code data}) or a field's neighbour, differently on each engine and run.
 */
final class CtxAccess {
    private CtxAccess() {}

    /** struct __sk_buff (include/uapi/linux/bpf.h): the fields the rules name, as [start, end) byte ranges. */
    private static final int SKB_SIZE = 192, QUEUE_MAPPING = 12, PRIORITY = 32, TC_INDEX = 44, CB = 48, CB_END = 68,
            TC_CLASSID = 72, DATA = 76, DATA_END = 80, FAMILY = 88, LOCAL_PORT_END = 140, DATA_META = 140,
            FLOW_KEYS = 144, REMOTE_IP4 = 92, LOCAL_IP6_END = 132, TSTAMP = 152, WIRE_LEN = 160, SK = 168, TSTAMP_TYPE = 180, HWTSTAMP = 184, MARK = 8;
    /** struct xdp_md: data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex. */
    private static final int XDP_SIZE = 24, XDP_EGRESS_IFINDEX = 20;
    /** sizeof(struct pt_regs) on x86-64, sizeof(struct bpf_perf_event_data), 12 u64 raw tracepoint arguments. */
    private static final int PT_REGS_SIZE = 168, PERF_EVENT_SIZE = 184, RAW_TP_SIZE = 8 * 12, SYSCALL_SIZE = 0xffff;

    /**
     * The type a load of the field yields ({@link RegType#SCALAR} or a packet pointer), any non-null value for
     * an allowed store, or null when the kernel refuses the access.
     */
    static RegType check(ContextRules rules, long off, int size, boolean write, boolean signExtend) {
        switch (rules) {
            case SOCKET_FILTER:
                if (in(off, TC_CLASSID, 4) || in(off, DATA, 4) || in(off, DATA_META, 4) || in(off, DATA_END, 4)
                        || within(off, FAMILY, LOCAL_PORT_END) || in(off, TSTAMP, 8) || in(off, WIRE_LEN, 4) || in(off, HWTSTAMP, 8)) {
                    return null;
                }
                if (write && !within(off, CB, CB_END)) return null;
                return skb(off, size, write, signExtend);
            case TC:
                if (write && !(in(off, MARK, 4) || in(off, TC_INDEX, 4) || in(off, PRIORITY, 4) || in(off, TC_CLASSID, 4)
                        || within(off, CB, CB_END) || in(off, TSTAMP, 8) || in(off, QUEUE_MAPPING, 4))) {
                    return null;
                }
                if (within(off, FAMILY, LOCAL_PORT_END)) return null;
                if (off == TSTAMP_TYPE) return size == 1 ? RegType.SCALAR : null; // read-only, one byte
                return packetField(skb(off, size, write, signExtend), off, true);
            case CGROUP_SKB:
                if (in(off, TC_CLASSID, 4) || in(off, DATA_META, 4) || in(off, WIRE_LEN, 4)) return null;
                if (write && !(in(off, MARK, 4) || in(off, PRIORITY, 4) || within(off, CB, CB_END) || in(off, TSTAMP, 8))) return null;
                if (within(off, REMOTE_IP4, LOCAL_IP6_END) && size != 4) return null; // the socket's addresses: whole words only
                return packetField(skb(off, size, write, signExtend), off, false);
            case LWT:
                if (in(off, TC_CLASSID, 4) || within(off, FAMILY, LOCAL_PORT_END) || in(off, DATA_META, 4) || in(off, TSTAMP, 8)
                        || in(off, WIRE_LEN, 4) || in(off, HWTSTAMP, 8)) {
                    return null;
                }
                if (write && !(in(off, MARK, 4) || in(off, PRIORITY, 4) || within(off, CB, CB_END))) return null;
                return packetField(skb(off, size, write, signExtend), off, false);
            case XDP:
                if (off == XDP_EGRESS_IFINDEX || write || off < 0 || off >= XDP_SIZE || off % size != 0 || size != 4) return null;
                if (signExtend && off < 12) return null; // data, data_end, data_meta become pointers
                return off == 0 ? RegType.PTR_TO_PACKET : off == 4 ? RegType.PTR_TO_PACKET_END
                        : off == 8 ? RegType.PTR_TO_PACKET_META : RegType.SCALAR;
            case KPROBE:
                return !write && off >= 0 && off + size <= PT_REGS_SIZE && off % size == 0 ? RegType.SCALAR : null;
            case PERF_EVENT:
                if (write || off < 0 || off >= PERF_EVENT_SIZE || off % size != 0) return null;
                return off >= PT_REGS_SIZE || size == 8 ? RegType.SCALAR : null; // sample_period and addr may be read narrow
            case RAW_TRACEPOINT:
                return !write && off >= 0 && off < RAW_TP_SIZE && off % size == 0 ? RegType.SCALAR : null;
            case SYSCALL:
                return off >= 0 && off < SYSCALL_SIZE && off % size == 0 ? RegType.SCALAR : null;
            default:
                throw new IllegalStateException("ctx rules " + rules);
        }
    }

    /** bpf_skb_is_valid_access: the checks every __sk_buff program type shares. */
    private static RegType skb(long off, int size, boolean write, boolean signExtend) {
        if (off < 0 || off >= SKB_SIZE || off % size != 0) return null;
        if (within(off, CB, CB_END)) return off + size <= CB_END ? RegType.SCALAR : null;
        if (in(off, DATA, 4) || in(off, DATA_META, 4) || in(off, DATA_END, 4)) return signExtend || size != 4 ? null : RegType.SCALAR;
        if (in(off, FLOW_KEYS, 8)) return null; // a pointer only flow dissectors may read
        if (in(off, TSTAMP, 8) || in(off, HWTSTAMP, 8)) return size == 8 ? RegType.SCALAR : null;
        // a struct bpf_sock * in Linux; bpf4j has no socket, its test-run ctx holds 0 there
        if (in(off, SK, 8)) return !write && size == 8 ? RegType.SCALAR : null;
        if (off >= TSTAMP_TYPE && off < HWTSTAMP) return null; // tstamp_type and padding
        if (write) return size == 4 ? RegType.SCALAR : null;
        return size <= 4 ? RegType.SCALAR : null; // narrow reads of a u32 field
    }

    /** data, data_end (and with {@code meta} data_meta) load as packet pointers. */
    private static RegType packetField(RegType t, long off, boolean meta) {
        if (t == null) return null;
        if (off == DATA) return RegType.PTR_TO_PACKET;
        if (off == DATA_END) return RegType.PTR_TO_PACKET_END;
        if (meta && off == DATA_META) return RegType.PTR_TO_PACKET_META;
        return t;
    }

    /** {@code off} lies in the field of {@code len} bytes at {@code start} (the kernel's bpf_ctx_range). */
    private static boolean in(long off, int start, int len) { return off >= start && off < start + len; }

    private static boolean within(long off, int start, int end) { return off >= start && off < end; }
}
