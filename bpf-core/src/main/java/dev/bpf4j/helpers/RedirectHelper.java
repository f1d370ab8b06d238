package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.RedirectMap;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;

/**
 * {@code bpf_redirect(u32 ifindex, u64 flags)}: in a test run nothing is sent; the helper records the
 * target and answers the verdict the program returns. XDP (bpf_xdp_redirect): XDP_REDIRECT, or
 * XDP_ABORTED for any flag. tc (bpf_redirect): TC_ACT_REDIRECT, or TC_ACT_SHOT for a flag other than
 * BPF_F_INGRESS. Linux offers it to no other program type.
 *
 * <p>{@code bpf_redirect_map(map, u32 key, u64 flags)} (XDP only: Linux refuses it to tc with "program of this
 * type cannot use helper bpf_redirect_map#51"), as net/core/filter.c's {@code __bpf_xdp_redirect_map}: a flag
 * outside the action bits (XDP_ABORTED..XDP_TX) and the map's own flags (devmaps: BPF_F_BROADCAST,
 * BPF_F_EXCLUDE_INGRESS) is XDP_ABORTED; a key holding a target, or BPF_F_BROADCAST on a devmap, XDP_REDIRECT;
 * otherwise the low two flag bits, the fallback action. In a test run without live frames nothing is sent.
 */
final class RedirectHelper {
    private RedirectHelper() {}

    static final long XDP_ABORTED = 0, XDP_REDIRECT = 4, TC_ACT_SHOT = 2, TC_ACT_REDIRECT = 7, BPF_F_INGRESS = 1;

    static final long ACTION_MASK = 3, BPF_F_BROADCAST = 8, BPF_F_EXCLUDE_INGRESS = 16;

    static void register(HelperRegistry.Builder b, MapTable maps) {
        b.add(HelperIds.REDIRECT_MAP, "bpf_redirect_map", (call, r1, r2, r3, r4, r5) -> {
            RunContext rc = call.runContext();
            PacketBuffer p = rc == null ? null : rc.packetBuffer();
            if (p == null || p.kind() != PacketBuffer.Kind.XDP) throw call.badArgument("bpf_redirect_map is offered to XDP programs only");
            BpfMap m = maps.find(r1).orElseThrow(() -> call.badArgument(String.format(
                    "bpf_redirect_map: r1 = 0x%x is not a map of this program", r1)));
            if (!(m instanceof RedirectMap target)) {
                throw call.badArgument("bpf_redirect_map needs a DEVMAP, DEVMAP_HASH, CPUMAP or XSKMAP, got " + m.describe());
            }
            boolean devmap = m.type() == MapType.DEVMAP || m.type() == MapType.DEVMAP_HASH;
            long mapFlags = devmap ? BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS : 0;
            if ((r3 & ~(ACTION_MASK | mapFlags)) != 0) return XDP_ABORTED;
            if (!target.hasTarget((int) r2) && (r3 & BPF_F_BROADCAST) == 0) return r3 & ACTION_MASK;
            return XDP_REDIRECT;
        });

        b.add(HelperIds.REDIRECT, "bpf_redirect", (call, r1, r2, r3, r4, r5) -> {
            RunContext rc = call.runContext();
            PacketBuffer p = rc == null ? null : rc.packetBuffer();
            if (p == null) throw call.badArgument("bpf_redirect is offered to XDP and tc programs only (this run has no packet)");
            if (p.kind() == PacketBuffer.Kind.XDP) return r2 != 0 ? XDP_ABORTED : XDP_REDIRECT;
            if (!p.writable()) throw call.badArgument("bpf_redirect is not offered to socket filter programs");
            return (r2 & ~BPF_F_INGRESS) != 0 ? TC_ACT_SHOT : TC_ACT_REDIRECT;
        });
    }
}
