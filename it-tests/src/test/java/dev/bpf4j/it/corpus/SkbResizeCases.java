package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.it.corpus.HelperCases.hexLe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Corpus cases of helpers_skb_resize.c: bpf_skb_change_head/_tail, bpf_skb_adjust_room and
 * bpf_skb_vlan_push/_pop, four steps per run with their arguments at the packet's end, at and one past every
 * bound of net/core/filter.c, on IPv4, IPv6, ARP, 802.1Q and QinQ frames; then seeded random step lists.
 * Each run's per-step results, skb->len, protocol and VLAN fields, the bytes at the network and mac headers
 * and the packet read again through fresh data/data_end land in the {@code skb_res} map, and data_out holds
 * the resized packet: CorpusDifferentialTest compares both engines, KernelCorpusTest the Linux kernel.
 */
final class SkbResizeCases {
    private SkbResizeCases() {}

    static final long SEED = 0x30_b2026L;
    static final int FUZZ_RUNS = 48;
    static final int MAX = 16384 - 320, ARGS = 96;
    static final int HEAD = 1, TAIL = 2, ROOM = 3, PUSH = 4, POP = 5, PROTO = 6, TYPE = 7, ECN = 8;
    /** bpf_htons of ETH_P_IP, ETH_P_IPV6, ETH_P_ARP: bpf_skb_change_proto's __be16. */
    static final int IP = 0x0008, IP6 = 0xdd86, ARP = 0x0608;
    static final int NET = 0, MAC = 1;
    static final long ENCAP_IPV4 = 2, ENCAP_IPV6 = 4, ENCAP_GRE = 8, ENCAP_UDP = 16, NO_CSUM_RESET = 32, ENCAP_ETH = 64,
            DECAP_IPV4 = 128, DECAP_IPV6 = 256;
    static final long EINVAL = -22, EFAULT = -14, ENOMEM = -12, EALREADY = -114, ENOTSUPP = -524;
    /** bpf_htons of the 802.1Q / 802.1ad ethertypes, as the helper's __be16 argument. */
    static final int Q = 0x0081, AD = 0xa888;

    record Step(int op, int a, int b, long flags) {}

    static Step head(int room, long flags) { return new Step(HEAD, room, 0, flags); }
    static Step tail(int len, long flags) { return new Step(TAIL, len, 0, flags); }
    static Step room(int diff, int mode, long flags) { return new Step(ROOM, diff, mode, flags); }
    static Step push(int proto, int tci) { return new Step(PUSH, proto, tci, 0); }
    static Step pop() { return new Step(POP, 0, 0, 0); }
    static Step proto(int proto, long flags) { return new Step(PROTO, proto, 0, flags); }
    static Step type(int pktType) { return new Step(TYPE, pktType, 0, 0); }
    static Step ecn() { return new Step(ECN, 0, 0, 0); }

    static List<CorpusCase> all() {
        Random rnd = new Random(SEED);
        List<CorpusCase> out = new ArrayList<>();
        out.add(directed());
        List<RunOptions> fuzz = new ArrayList<>();
        for (int i = 0; i < FUZZ_RUNS; i++) fuzz.add(randomRun(rnd));
        out.add(new CorpusCase("helpers_skb_resize", "tc_resize", fuzz, o -> { }, null));
        // each repeat starts from the skb the last one left: 4 more bytes of head room per run
        out.add(new CorpusCase("helpers_skb_resize", "tc_resize", List.of(run(Packets.udp(53, 10), head(4, 0)).withRepeat(3)), o -> {
            for (int run = 0; run < 3; run++) {
                assertThat(HelperCases.res(o, "skb_res", run, 1)).isEqualTo(hexLe((long) (52 + ARGS + 4 * (run + 1)) << 32 | 0x0008));
            }
        }, null));
        return out;
    }

    private static CorpusCase directed() {
        byte[] udp = Packets.udp(53, 10);
        int len = udp.length + ARGS;
        List<RunOptions> runs = List.of(
                // 0: head room up to BPF_SKB_MAX_LEN, one byte more; tail to the limit, one past
                run(udp, head(MAX - len, 0), head(1, 0), tail(MAX, 0), tail(MAX + 1, 0)),
                // 1: flags, a negative head room, tail down to the network header (14) and below
                run(udp, head(0, 1), head(-1, 0), tail(14, 0), tail(13, 0)),
                // 2: 8 bytes after the IPv4 header and back, |len_diff| past 0xfff, an unknown mode
                run(udp, room(8, NET, 0), room(-8, NET, 0), room(0x1000, MAC, 0), room(4, 2, 0)),
                // 3: an IPv4-in-IPv4/UDP tunnel header, again (-EALREADY), change_tail on it (-ENOTSUPP), decap
                run(udp, room(28, MAC, ENCAP_IPV4 | ENCAP_UDP), room(28, MAC, ENCAP_IPV4), tail(len, 0), room(-28, MAC, DECAP_IPV4)),
                // 4: an unknown flag, decap while growing, shrink past len_min, both L3 encaps
                run(udp, room(8, NET, 1 << 9), room(8, NET, DECAP_IPV4), room(-(len - 14 - 20 + 1), NET, 0),
                        room(4, MAC, ENCAP_IPV4 | ENCAP_IPV6)),
                // 5: a tag out of band, a second one (the first goes into the packet), pop both
                run(udp, push(Q, 5), push(AD, 0x1007), pop(), pop()),
                // 6: an 802.1Q frame: pop from the packet, push an unknown protocol (802.1Q), pop, pop again (nothing)
                run(vlan(udp, 0x8100, 0x0123), pop(), push(0x3412, 0xffff), pop(), pop()),
                // 7: ARP: adjust_room refuses it; head and tail still work
                run(Packets.arp(), room(8, MAC, 0), head(14, 0), tail(30, 0), room(-4, NET, 0)),
                // 8: IPv6: shrink to the IPv6 minimum, IPv4 encap turns it into IPv4, GRE + UDP refused, L2 encap too short
                run(Packets.ipv6(17, 64), room(40, MAC, ENCAP_IPV4 | ENCAP_GRE), room(8, MAC, ENCAP_IPV4 | ENCAP_GRE | ENCAP_UDP),
                        room(20, MAC, ENCAP_IPV6 | ENCAP_ETH | (13L << 56)), room(-20, MAC, DECAP_IPV6)),
                // 9: QinQ: pop the outer tag from the packet, the inner one goes out of band; pop it; L2 encap of 14 bytes
                run(vlan(vlan(udp, 0x8100, 0x0456), 0x88a8, 0x0789), pop(), pop(), room(34, MAC, ENCAP_IPV4 | ENCAP_ETH | (14L << 56)),
                        room(-34, NET, 0)),
                // 10: the extremes of every argument
                run(udp, head(Integer.MIN_VALUE, -1), tail(-1, 0), room(Integer.MIN_VALUE, MAC, 0), room(0xfff, -1, NO_CSUM_RESET)),
                // 11: pkt_type to PACKET_BROADCAST, past PACKET_OTHERHOST; IPv4 to IPv6 (20 bytes more) and back
                run(udp, type(1), type(4), proto(IP6, 0), proto(IP, 0)),
                // 12: IPv6: a flag, ARP, to IPv4 (20 bytes less), then adjust_room sees IPv4
                run(Packets.ipv6(17, 64), proto(IP, 1), proto(ARP, 0), proto(IP, 0), room(8, NET, 0)),
                // 13-15: bpf_skb_ecn_set_ce on IPv4 Not-ECT (0), ECT(0) (1, checksum updated), CE (1); IPv6 ECT(1); 802.1Q, ARP
                run(ecn(Packets.udp(53, 10), 0), ecn(), type(0), ecn()),
                run(ecn(Packets.udp(53, 10), 2), ecn(), ecn()),
                run(ecn(Packets.ipv6(6, 3), 1), ecn(), pop(), ecn()),
                run(vlan(ecn(Packets.udp(53, 10), 1), 0x8100, 3), ecn(), pop(), ecn()),
                run(Packets.arp(), ecn()));
        return new CorpusCase("helpers_skb_resize", "tc_resize", runs, o -> {
            long[][] results = {
                {0, EINVAL, 0, EINVAL}, {EINVAL, EINVAL, 0, EINVAL}, {0, 0, EFAULT, ENOTSUPP}, {0, EALREADY, ENOTSUPP, 0},
                {EINVAL, EINVAL, ENOTSUPP, EINVAL}, {0, 0, 0, 0}, {0, 0, 0, 0}, {ENOTSUPP, 0, 0, ENOTSUPP},
                {0, EINVAL, EINVAL, 0}, {0, 0, 0, 0}, {EINVAL, EINVAL, EFAULT, ENOTSUPP}, {0, EINVAL, 0, 0},
                {EINVAL, ENOTSUPP, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 0, 1, 0}, {0, 0, 0, 0}};
            for (int run = 0; run < results.length; run++) {
                for (int s = 0; s < 4; s++) {
                    assertThat(HelperCases.res(o, "skb_res", run, 3 * s)).as("run %d step %d", run, s).isEqualTo(hexLe(results[run][s]));
                }
            }
            assertThat(HelperCases.res(o, "skb_res", 0, 1)).isEqualTo(hexLe((long) MAX << 32 | 0x0008));
            // run 5: after the second push the packet holds 81 00 00 05 after the MACs; the tag out of band is 88a8/0x1007
            assertThat(HelperCases.res(o, "skb_res", 5, 5)).isEqualTo(hexLe(3L << 40 | 1L << 32 | 0xa888L << 16 | 0x1007));
            assertThat(HelperCases.res(o, "skb_res", 5, 4)).isEqualTo(hexLe((long) (len + 4) << 32 | 0x0081));
            assertThat(HelperCases.res(o, "skb_res", 5, 8)).isEqualTo(hexLe(3L << 40 | 1L << 32 | 0x0081L << 16 | 5));
            // run 14: ECT(0) to CE: tos 0x02 -> 0x03, the header checksum one less (one's complement), the rest untouched
            byte[] sent = ecn(Packets.udp(53, 10), 2);
            int check = (sent[24] & 0xff) << 8 | (sent[25] & 0xff), less = check == 1 ? 0xffff : check - 1;
            String out = o.runs().get(14);
            String ip = out.substring(out.indexOf("data_out=") + 9 + 28, out.indexOf("data_out=") + 9 + 68);
            assertThat(ip.substring(0, 4)).isEqualTo("4503");
            assertThat(ip.substring(20, 24)).isEqualTo(String.format("%04x", less));
            // run 11: PACKET_BROADCAST, then IPv6 with 20 more bytes
            assertThat(HelperCases.res(o, "skb_res", 11, 2)).isEqualTo(hexLe(1L << 40));
            assertThat(HelperCases.res(o, "skb_res", 11, 7)).isEqualTo(hexLe((long) (len + 20) << 32 | IP6));
        }, null);
    }

    private static RunOptions randomRun(Random r) {
        byte[][] frames = {ecn(Packets.udp(53, 10), r.nextInt(4)), ecn(Packets.ipv6(6, 3), r.nextInt(4)), Packets.arp(),
                vlan(ecn(Packets.udp(80, 4), r.nextInt(4)), 0x8100, r.nextInt(0x10000)),
                vlan(vlan(Packets.tcp(22, 9), 0x8100, 1), 0x88a8, 2)};
        int[] sizes = {0, 1, 4, 8, 13, 14, 20, 28, 34, 40, 0xfff, 0x1000, MAX, MAX + 1, -1, -4, -8, -20, -28, -40, -100,
                Integer.MIN_VALUE, Integer.MAX_VALUE};
        long[] flags = {0, 0, 0, ENCAP_IPV4, ENCAP_IPV6, ENCAP_IPV4 | ENCAP_UDP, ENCAP_IPV6 | ENCAP_GRE, ENCAP_IPV4 | ENCAP_ETH | (14L << 56),
                DECAP_IPV4, DECAP_IPV6, NO_CSUM_RESET, 1, 1 << 9, -1};
        Step[] steps = new Step[4];
        for (int i = 0; i < 4; i++) {
            int op = r.nextInt(9);
            int a = op == PUSH ? new int[] {Q, AD, r.nextInt(0x10000)}[r.nextInt(3)]
                    : op == PROTO ? new int[] {IP, IP6, ARP, r.nextInt(0x10000)}[r.nextInt(4)]
                    : op == TYPE ? r.nextInt(6)
                    : r.nextBoolean() ? sizes[r.nextInt(sizes.length)] : r.nextInt(400) - 200;
            if (op == TAIL && r.nextBoolean()) a = 14 + r.nextInt(300);
            int b = op == PUSH ? r.nextInt(0x10000) : r.nextInt(5) == 0 ? r.nextInt(4) : r.nextInt(2);
            long f = op == HEAD || op == TAIL || op == PROTO ? (r.nextInt(6) == 0 ? 1 : 0) : flags[r.nextInt(flags.length)];
            steps[i] = new Step(op, a, b, f);
        }
        return run(frames[r.nextInt(frames.length)], steps);
    }

    /** The IPv4 or IPv6 frame with ECN codepoint {@code ecn} (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
    static byte[] ecn(byte[] frame, int ecn) {
        byte[] f = frame.clone();
        if (f[12] == 0x08 && f[13] == 0x00) f[15] = (byte) (f[15] & ~3 | ecn);
        else f[15] = (byte) (f[15] & ~0x30 | ecn << 4);
        return f;
    }

    /** The frame with an 802.1Q/802.1ad tag inserted after the MAC addresses. */
    static byte[] vlan(byte[] frame, int tpid, int tci) {
        ByteBuffer b = ByteBuffer.allocate(frame.length + 4);
        b.put(frame, 0, 12).putShort((short) tpid).putShort((short) tci).put(frame, 12, frame.length - 12);
        return b.array();
    }

    /** {@code frame} followed by struct resize_args: four steps, missing ones doing nothing. */
    static RunOptions run(byte[] frame, Step... steps) {
        ByteBuffer b = ByteBuffer.allocate(frame.length + ARGS).order(ByteOrder.LITTLE_ENDIAN).put(frame);
        for (int i = 0; i < 4; i++) {
            Step s = i < steps.length ? steps[i] : new Step(0, 0, 0, 0);
            b.putInt(s.op()).putInt(s.a()).putInt(s.b()).putInt(0).putLong(s.flags());
        }
        return RunOptions.packet(b.array());
    }
}
