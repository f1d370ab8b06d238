package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;

import static dev.bpf4j.helpers.Packets.EACCES;
import static dev.bpf4j.helpers.Packets.EFAULT;
import static dev.bpf4j.helpers.Packets.EINVAL;
import static dev.bpf4j.helpers.Packets.ENOMEM;
import static dev.bpf4j.helpers.Packets.ENOTSUPP;

/**
 * The sk_buff helpers of net/core/filter.c for tc and socket-filter programs, over the test run's linear
 * skb ({@link PacketBuffer}): {@code skb->data} is the ctx's {@code data}, {@code skb->len} its length.
 * A test-run skb is built with {@code ip_summed = CHECKSUM_NONE}, so the checksum-complete branches of
 * the kernel (skb->csum upkeep) never run: {@code bpf_csum_update} answers -ENOTSUPP and
 * {@code BPF_F_RECOMPUTE_CSUM} changes nothing, exactly as in the kernel's test runs.
 */
final class SkbHelpers {
    private SkbHelpers() {}

    static final long BPF_F_RECOMPUTE_CSUM = 1, BPF_F_INVALIDATE_HASH = 2;
    static final long BPF_F_HDR_FIELD_MASK = 0xf, BPF_F_PSEUDO_HDR = 1 << 4, BPF_F_MARK_MANGLED_0 = 1 << 5,
            BPF_F_MARK_ENFORCE = 1 << 6, BPF_F_IPV6 = 1 << 7;
    static final int BPF_HDR_START_MAC = 0, BPF_HDR_START_NET = 1;
    static final int BPF_CSUM_LEVEL_QUERY = 0, BPF_CSUM_LEVEL_INC = 1, BPF_CSUM_LEVEL_DEC = 2, BPF_CSUM_LEVEL_RESET = 3;
    static final int CHECKSUM_NONE = 0, CHECKSUM_UNNECESSARY = 1, SKB_MAX_CSUM_LEVEL = 3;
    /** {@code CSUM_MANGLED_0}: a UDP checksum that computes to 0 is sent as 0xffff. */
    private static final short CSUM_MANGLED_0 = (short) 0xffff;
    private static final long INT_MAX = Integer.MAX_VALUE;
    /** __sk_buff.hash. */
    static final int SKB_HASH = 68;

    static void register(HelperRegistry.Builder b) {
        b.addForward(HelperIds.SKB_LOAD_BYTES, "bpf_skb_load_bytes", SkbHelpers::loadBytes);
        b.addForward(HelperIds.SKB_LOAD_BYTES_RELATIVE, "bpf_skb_load_bytes_relative", SkbHelpers::loadBytesRelative);
        b.addForward(HelperIds.SKB_STORE_BYTES, "bpf_skb_store_bytes", SkbHelpers::storeBytes);
        b.addForward(HelperIds.L3_CSUM_REPLACE, "bpf_l3_csum_replace", SkbHelpers::l3CsumReplace);
        b.addForward(HelperIds.L4_CSUM_REPLACE, "bpf_l4_csum_replace", SkbHelpers::l4CsumReplace);
        b.addForward(HelperIds.CSUM_UPDATE, "bpf_csum_update", (call, r1, r2, r3, r4, r5) -> {
            Packets.of(call, "bpf_csum_update", r1, PacketBuffer.Kind.SKB);
            return ENOTSUPP; // only a CHECKSUM_COMPLETE skb has a skb->csum to update
        });
        b.addForward(HelperIds.CSUM_LEVEL, "bpf_csum_level", SkbHelpers::csumLevel);
        // bpf_skb_pull_data(skb, u32 len): skb_ensure_writable(skb, len ?: headlen); a test run's skb is linear,
        // so it only fails, with -ENOMEM (pskb_may_pull), when len is past skb->len
        b.addForward(HelperIds.SKB_PULL_DATA, "bpf_skb_pull_data", (call, r1, r2, r3, r4, r5) -> {
            PacketBuffer p = Packets.writable(call, "bpf_skb_pull_data", r1);
            return (r2 & 0xffffffffL) > p.length() ? ENOMEM : 0;
        });
        b.addForward(HelperIds.SET_HASH_INVALID, "bpf_set_hash_invalid", (call, r1, r2, r3, r4, r5) -> {
            PacketBuffer p = Packets.of(call, "bpf_set_hash_invalid", r1, PacketBuffer.Kind.SKB);
            NativeMemory.putInt(r1 + SKB_HASH, 0); // skb_clear_hash
            p.skb().setHashValid(false);
            return 0;
        });
        // bpf_get_hash_recalc(skb): skb_get_hash, the flow hash computed once (FlowHash) unless one is set
        b.addForward(HelperIds.GET_HASH_RECALC, "bpf_get_hash_recalc", (call, r1, r2, r3, r4, r5) -> {
            PacketBuffer p = Packets.writable(call, "bpf_get_hash_recalc", r1);
            if (!p.skb().hashValid()) {
                NativeMemory.putInt(r1 + SKB_HASH, FlowHash.of(p, Packets.protocol(p)));
                p.skb().setHashValid(true);
            }
            return Integer.toUnsignedLong(NativeMemory.getInt(r1 + SKB_HASH));
        });
        b.addForward(HelperIds.SET_HASH, "bpf_set_hash", (call, r1, r2, r3, r4, r5) -> {
            PacketBuffer p = Packets.of(call, "bpf_set_hash", r1, PacketBuffer.Kind.SKB);
            NativeMemory.putInt(r1 + SKB_HASH, (int) r2); // __skb_set_sw_hash(skb, hash, true)
            p.skb().setHashValid(true);
            return 0;
        });
    }

    /**
     * bpf_skb_load_bytes(skb, u32 offset, to, u32 len): skb_header_pointer, so any range inside
     * {@code skb->len}; otherwise {@code to} is zeroed and the result is -EFAULT.
     */
    static long loadBytes(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_skb_load_bytes", r1, PacketBuffer.Kind.SKB);
        long offset = r2 & 0xffffffffL, len = r4 & 0xffffffffL;
        memoryArgument(call, "bpf_skb_load_bytes to (r3)", r3, len, true);
        if (offset > INT_MAX || offset + len > p.length()) {
            NativeMemory.setMemory(r3, len, (byte) 0);
            return EFAULT;
        }
        NativeMemory.copy(p.data() + offset, r3, len);
        return 0;
    }

    /**
     * bpf_skb_load_bytes_relative(skb, offset, to, len, start_header): from the mac header
     * (BPF_HDR_START_MAC) or the network header (BPF_HDR_START_NET) up to the skb's tail.
     */
    static long loadBytesRelative(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_skb_load_bytes_relative", r1, PacketBuffer.Kind.SKB);
        long offset = r2 & 0xffffffffL, len = r4 & 0xffffffffL, header = r5 & 0xffffffffL;
        memoryArgument(call, "bpf_skb_load_bytes_relative to (r3)", r3, len, true);
        long start = header == BPF_HDR_START_MAC ? p.macHeader() : header == BPF_HDR_START_NET ? p.networkHeader() : 0;
        if (offset > 0xffff || start == 0 || start + offset + len > p.dataEnd()) {
            NativeMemory.setMemory(r3, len, (byte) 0);
            return EFAULT;
        }
        NativeMemory.copy(start + offset, r3, len);
        return 0;
    }

    /** bpf_skb_store_bytes(skb, u32 offset, from, u32 len, u64 flags). */
    static long storeBytes(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_skb_store_bytes", r1);
        long offset = r2 & 0xffffffffL, len = r4 & 0xffffffffL;
        memoryArgument(call, "bpf_skb_store_bytes from (r3)", r3, len, false);
        if ((r5 & ~(BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH)) != 0) return EINVAL;
        if (offset > INT_MAX) return EFAULT;
        if (((offset + len) & 0xffffffffL) > p.length()) return EFAULT; // bpf_try_make_writable: pskb_may_pull fails
        // memmove: from may overlap the packet
        byte[] bytes = NativeMemory.read(r3, (int) len);
        NativeMemory.write(p.data() + offset, bytes, 0, bytes.length);
        if ((r5 & BPF_F_INVALIDATE_HASH) != 0) { // skb_clear_hash
            NativeMemory.putInt(r1 + SKB_HASH, 0);
            p.skb().setHashValid(false);
        }
        return 0;
    }

    /** bpf_l3_csum_replace(skb, u32 offset, u64 from, u64 to, u64 flags): flags' low 4 bits are the field size (0: to is a diff). */
    static long l3CsumReplace(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_l3_csum_replace", r1);
        long offset = r2 & 0xffffffffL;
        if ((r5 & ~BPF_F_HDR_FIELD_MASK) != 0) return EINVAL;
        if (offset > 0xffff || (offset & 1) != 0) return EFAULT;
        if (offset + 2 > p.length()) return EFAULT;
        long sum = p.data() + offset;
        switch ((int) (r5 & BPF_F_HDR_FIELD_MASK)) {
            case 0:
                if (r3 != 0) return EINVAL;
                Checksums.replaceByDiff(sum, (int) r4);
                return 0;
            case 2:
                Checksums.replace2(sum, (int) r3 & 0xffff, (int) r4 & 0xffff);
                return 0;
            case 4:
                Checksums.replace4(sum, (int) r3, (int) r4);
                return 0;
            default:
                return EINVAL;
        }
    }

    /**
     * bpf_l4_csum_replace: as l3, through inet_proto_csum_replace*; without CHECKSUM_PARTIAL (never in a
     * test run) BPF_F_PSEUDO_HDR changes nothing. BPF_F_MARK_MANGLED_0 (UDP): a zero checksum is left
     * alone unless BPF_F_MARK_ENFORCE, and a result of 0 is written as 0xffff.
     */
    static long l4CsumReplace(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.writable(call, "bpf_l4_csum_replace", r1);
        long offset = r2 & 0xffffffffL;
        boolean mmzero = (r5 & BPF_F_MARK_MANGLED_0) != 0, mforce = (r5 & BPF_F_MARK_ENFORCE) != 0;
        if ((r5 & ~(BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE | BPF_F_PSEUDO_HDR | BPF_F_HDR_FIELD_MASK | BPF_F_IPV6)) != 0) return EINVAL;
        if (offset > 0xffff || (offset & 1) != 0) return EFAULT;
        if (offset + 2 > p.length()) return EFAULT;
        long sum = p.data() + offset;
        if (mmzero && !mforce && NativeMemory.getShort(sum) == 0) return 0;
        switch ((int) (r5 & BPF_F_HDR_FIELD_MASK)) {
            case 0:
                if (r3 != 0) return EINVAL;
                Checksums.replaceByDiff(sum, (int) r4);
                break;
            case 2: // inet_proto_csum_replace2 widens the 16-bit values and calls replace4
                Checksums.replace4(sum, (int) r3 & 0xffff, (int) r4 & 0xffff);
                break;
            case 4:
                Checksums.replace4(sum, (int) r3, (int) r4);
                break;
            default:
                return EINVAL;
        }
        if (mmzero && NativeMemory.getShort(sum) == 0) NativeMemory.putShort(sum, CSUM_MANGLED_0);
        return 0;
    }

    /** bpf_csum_level(skb, u64 level): the CHECKSUM_UNNECESSARY level, as __skb_{incr,decr,reset}_checksum_unnecessary. */
    static long csumLevel(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
        PacketBuffer p = Packets.of(call, "bpf_csum_level", r1, PacketBuffer.Kind.SKB);
        boolean unnecessary = p.ipSummed() == CHECKSUM_UNNECESSARY;
        int level = p.csumLevel();
        if (r2 == BPF_CSUM_LEVEL_QUERY) return unnecessary ? level : EACCES;
        if (r2 == BPF_CSUM_LEVEL_INC) {
            if (unnecessary) p.setChecksum(CHECKSUM_UNNECESSARY, Math.min(level + 1, SKB_MAX_CSUM_LEVEL));
            else p.setChecksum(CHECKSUM_UNNECESSARY, 0); // from CHECKSUM_NONE
        } else if (r2 == BPF_CSUM_LEVEL_DEC) {
            if (unnecessary) p.setChecksum(level == 0 ? CHECKSUM_NONE : CHECKSUM_UNNECESSARY, Math.max(level - 1, 0));
        } else if (r2 == BPF_CSUM_LEVEL_RESET) {
            if (unnecessary) p.setChecksum(CHECKSUM_NONE, 0);
        } else {
            return EINVAL;
        }
        return 0;
    }

    /** ARG_PTR_TO_(UNINIT_)MEM with its ARG_CONST_SIZE: all of it reachable by the program (the verifier's rule, checked here). */
    static void memoryArgument(HelperCall call, String what, long address, long len, boolean write) {
        if (len == 0) throw call.badArgument(what + ": size 0 (ARG_CONST_SIZE: the kernel refuses a zero-sized access)");
        call.checkArgument(what, address, len, write);
    }
}
