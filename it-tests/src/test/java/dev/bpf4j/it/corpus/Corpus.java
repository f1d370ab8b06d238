package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.util.List;
import java.util.function.Consumer;

import static dev.bpf4j.it.corpus.Packets.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The corpus cases: every program of objects/corpus with its inputs and what the reference must show. */
final class Corpus {
    private Corpus() {}

    private static RunOptions pkt(byte[] p) { return RunOptions.packet(p); }
    private static RunOptions ctx(byte[] c) { return RunOptions.defaults().withCtxIn(c); }
    private static final Consumer<Outcome> ANY = o -> { };

    private static CorpusCase c(String obj, String prog, List<RunOptions> runs, Consumer<Outcome> expect) {
        return new CorpusCase(obj, prog, runs, expect, null);
    }

    /** pt_regs with rdi, rsi, rdx, rip, rsp, rax set (x86-64 layout: rax at 80, dx 96, si 104, di 112, ip 128, sp 152). */
    static byte[] ptRegs(long di, long si, long dx, long ip, long sp, long ax) {
        long[] r = new long[21];
        r[14] = di; r[13] = si; r[12] = dx; r[16] = ip; r[19] = sp; r[10] = ax;
        return le(r);
    }

    /** ld_abs_headers: what LD ABS/IND read past the network and mac headers of {@code p}; SKF_AD_OFF ends the run. */
    private static void skfHeaders(Outcome o, byte[] p) {
        int n = p.length;
        assertThat(o.runs().get(0)).startsWith("retval=0 ");
        assertThat(o.maps().get("seen")).containsExactly("00000000=" + hex(le(p[14] & 0xffL)), "01000000=" + hex(le(be(p, 15, 2))),
                "02000000=" + hex(le(be(p, 0, 4))), "03000000=" + hex(le(p[13] & 0xffL)), "04000000=" + hex(le(be(p, n - 4, 4))),
                "05000000=" + hex(le(p[n - 1] & 0xffL)), "06000000=" + hex(le(0L)), "07000000=" + hex(le(0L)));
    }

    private static long be(byte[] p, int at, int size) {
        long v = 0;
        for (int i = 0; i < size; i++) v = v << 8 | (p[at + i] & 0xff);
        return v;
    }

    static List<CorpusCase> all() {
        byte[] ipv4 = udp(53, 10);
        byte[] badCsum = udp(53, 10);
        badCsum[14 + 10] ^= 0x55;
        long[] perf = new long[23];
        perf[16] = 0x401000; perf[21] = 4000; perf[22] = 0xdeadbeefL;
        List<CorpusCase> base = List.of(
            c("xdp_proto_count", "xdp_proto_count", List.of(pkt(ipv4), pkt(ipv4), pkt(ipv6(6, 64)), pkt(arp()), pkt(new byte[20])),
                o -> {
                    assertThat(o.runs()).containsExactly("retval=2 data_out=" + hex(ipv4), "retval=2 data_out=" + hex(ipv4),
                            "retval=2 data_out=" + hex(ipv6(6, 64)), "retval=2 data_out=" + hex(arp()), "retval=1 data_out=" + hex(new byte[20]));
                    assertThat(o.entry("proto_counts", "00000000")).isEqualTo(hex(le(2, 2L * ipv4.length)));
                }),
            c("xdp_swap_mac", "xdp_swap_mac", List.of(pkt(ipv4)), o -> {
                byte[] swapped = ipv4.clone();
                System.arraycopy(SRC, 0, swapped, 0, 6);
                System.arraycopy(DST, 0, swapped, 6, 6);
                assertThat(o.runs()).containsExactly("retval=3 data_out=" + hex(swapped));
            }),
            c("xdp_swap_mac", "xdp_md_fields", List.of(pkt(ipv4)),
                o -> assertThat(o.runs().get(0)).startsWith("retval=" + ((1 << 24) | ipv4.length) + " ")),
            c("xdp_percpu", "xdp_percpu_count", List.of(pkt(ipv4).withRepeat(5)),
                o -> assertThat(o.entry("pcpu_stats", "00000000")).isEqualTo(hex(le(5)))),
            c("xdp_flows", "xdp_flows", List.of(pkt(ipv4), pkt(tcp(80, 64)), pkt(ipv4)),
                o -> assertThat(o.maps().get("flows")).hasSize(2)),
            c("xdp_percpu_hash", "xdp_percpu_hash", List.of(pkt(ipv4).withRepeat(3), pkt(arp())),
                o -> assertThat(o.entry("by_dst", "0b000000")).isEqualTo(hex(le(3)))),
            c("lru", "tc_lru", List.of(pkt(ipv4), pkt(tcp(22, 9))),
                o -> assertThat(o.entry("last_len", "0a000000")).isEqualTo(hex(le(tcp(22, 9).length)))),
            c("tc_skb", "tc_mark", List.of(new RunOptions(ipv4, 0, skb(5, 9, 2), 1, null), pkt(arp())),
                o -> assertThat(o.runs().get(0)).startsWith("retval=0 ")),
            c("tc_skb", "tc_ttl", List.of(pkt(tcp(80, 64)), pkt(tcp(80, 1))), o -> {
                assertThat(o.runs().get(0)).startsWith("retval=0 ");
                assertThat(o.runs().get(1)).startsWith("retval=2 ");
            }),
            c("socket_filter", "sock_dns", List.of(pkt(udp(53, 4)), pkt(udp(54, 4)), pkt(tcp(53, 64))), o -> {
                assertThat(o.runs().get(0)).startsWith("retval=" + (udp(53, 4).length - 14) + " ");
                assertThat(o.runs().get(1)).startsWith("retval=0 ");
            }),
            c("socket_len", "sock_len", List.of(pkt(ipv4), pkt(arp())),
                o -> assertThat(o.runs().get(0)).startsWith("retval=" + (ipv4.length - 14 + 8 + 3000) + " ")),
            c("kprobe_regs", "kprobe_args", List.of(ctx(ptRegs(0x1234, 2, 3, 0xffffffff81000000L, 0x7ffc0000, 0)),
                    ctx(ptRegs(0x99, 5, 6, 7, 8, 1))), o -> {
                assertThat(o.runs()).containsExactly("retval=0", "retval=1");
                assertThat(o.maps().get("calls")).hasSize(2);
            }),
            c("perf_event", "perf_sample", List.of(ctx(le(perf)).withRepeat(2)),
                o -> assertThat(o.maps().get("samples")).containsExactly("00000000=" + hex(le(8000)), "01000000=" + hex(le(0xdeadbeefL)),
                        "02000000=" + hex(le(0x401000)))),
            c("raw_tp", "raw_tp_args", List.of(ctx(le(7, 200)), ctx(le(1, 2))), o -> {
                assertThat(o.runs()).containsExactly("retval=1", "retval=0");
                assertThat(o.entry("raw_tp.bss", "00000000")).isEqualTo(hex(le(210)));
            }),
            c("syscall_ctx", "syscall_calc", List.of(ctx(le32(0, 2, 3, 0, 0, 0)), ctx(le32(1, 4, 5, 0, 0, 0)), ctx(le32(2, 9, 0, 0, 0, 0)),
                    ctx(le32(3, 0, 0, 0, 0, 0)), ctx(le32(7, 0, 0, 0, 0, 0))), o -> {
                assertThat(o.runs().get(0)).isEqualTo("retval=0 ctx_out=" + hex(le32(0, 2, 3, 5, 1, 0)));
                assertThat(o.runs().get(1)).isEqualTo("retval=0 ctx_out=" + hex(le32(1, 4, 5, 60, 2, 0)));
                assertThat(o.runs().get(4)).startsWith("retval=" + (-22 & 0xffffffffL) + " ");
            }),
            c("globals_data", "xdp_globals", List.of(pkt(ipv4).withRepeat(4), pkt(new byte[14])),
                o -> assertThat(o.entry("globals_.bss", "00000000")).startsWith(hex(le(4L * ipv4.length + 14)))),
            c("subprogs", "xdp_ip_csum", List.of(pkt(ipv4), pkt(badCsum), pkt(arp())),
                o -> assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=2", "retval=1", "retval=2")),
            c("loops", "xdp_loops", List.of(pkt(ipv4)),
                o -> assertThat(o.entry("loop_out", "01000000")).isEqualTo(hex(le(2880067194370816120L)))),
            c("atomics", "tc_atomics", List.of(pkt(ipv4).withRepeat(3), pkt(tcp(1, 2))), o -> { }),
            c("ringbuf", "xdp_ringbuf", List.of(pkt(ipv4), pkt(arp())), o -> assertThat(o.maps().get("events")).hasSize(4)),
            c("queue_stack", "xdp_queue_stack", List.of(pkt(ipv4), pkt(arp())), o -> {
                assertThat(o.maps().get("fifo")).hasSize(4);
                assertThat(o.maps().get("lifo")).hasSize(4);
            }),
            c("hash_ops", "hash_ops", List.of(RunOptions.defaults()), o -> assertThat(o.maps().get("small")).hasSize(3)),
            c("xdp_ipv6", "xdp_ipv6_hop", List.of(pkt(ipv6(6, 64)), pkt(ipv6(17, 1)), pkt(ipv6(58, 2)), pkt(ipv4)),
                o -> assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=3", "retval=1", "retval=3", "retval=2")),
            c("cgroup_skb", "cg_egress", List.of(pkt(ipv4), pkt(tcp(80, 9))), o -> {
                assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=1", "retval=0");
                assertThat(o.entry("proto_bytes", "11000000")).isEqualTo(hex(le(ipv4.length - 14)));
            }),
            c("xdp_match", "xdp_match", List.of(pkt(ipv4), pkt(udp(53, 4)), pkt(arp())),
                o -> assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=1", "retval=2", "retval=2")),
            c("syscall_snprintf", "format_msg", List.of(ctx(java.util.Arrays.copyOf(le(6, 7), 64))), o -> {
                byte[] expected = java.util.Arrays.copyOf(le(6, 7), 64);
                byte[] text = "6 * 7 = 00000042".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                System.arraycopy(text, 0, expected, 16, text.length);
                assertThat(o.runs()).containsExactly("retval=17 ctx_out=" + hex(expected));
            }),
            c("tail_calls", "tail_entry", List.of(pkt(ipv4), pkt(ipv6(6, 64)), pkt(arp())), o -> {
                assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=3", "retval=3", "retval=2");
                assertThat(o.maps().get("hits")).containsExactly("00000000=" + hex(le(3)), "01000000=" + hex(le(2)),
                        "02000000=" + hex(le(1)), "03000000=" + hex(le(1)));
            }),
            c("tail_calls", "tail_empties", List.of(pkt(ipv4)), o -> {
                assertThat(o.runs().get(0)).startsWith("retval=3 "); // slot 0 taken after 40 empty ones
                assertThat(o.maps().get("hits")).containsExactly("00000000=" + hex(le(0)), "01000000=" + hex(le(1)),
                        "02000000=" + hex(le(0)), "03000000=" + hex(le(0)));
            }),
            c("ld_abs_headers", "skf_socket", List.of(pkt(ipv4)), o -> skfHeaders(o, ipv4)),
            c("ld_abs_headers", "skf_tc", List.of(pkt(ipv4)), o -> skfHeaders(o, ipv4)),
            c("ld_abs_headers", "skf_past_end", List.of(pkt(ipv4)), o -> {
                assertThat(o.runs().get(0)).startsWith("retval=0 ");
                assertThat(o.entry("seen", "00000000")).isEqualTo(hex(le(ipv4[ipv4.length - 1] & 0xffL)));
                assertThat(o.entry("seen", "01000000")).isEqualTo(hex(le(0L)));
                assertThat(o.entry("seen", "02000000")).isEqualTo(hex(le(0L)));
            }),
            c("map_in_map", "mim_update", List.of(ctx(mim(0, 1, 5, false)), ctx(mim(1, 0, 1, false)), ctx(mim(1, 2, 7, true)),
                    ctx(mim(3, 1, 1, true)), ctx(mim(2, 4, 1, false)), ctx(mim(2, 0, 1, true))), o -> {
                assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=0", "retval=1", "retval=0",
                        "retval=0", "retval=2", "retval=1");
                assertThat(o.maps().get("inner_a")).containsExactly("00000000=" + hex(le(12)), "01000000=" + hex(le(6)),
                        "02000000=" + hex(le(0)), "03000000=" + hex(le(0)));
                assertThat(o.entry("inner_b", "02000000")).isEqualTo(hex(le(7)));
                assertThat(o.entry("inner_b", "03000000")).isEqualTo(hex(le(14)));
                assertThat(o.maps().get("outer_arr")).containsExactly("00000000=inner_a", "02000000=inner_b");
                assertThat(o.maps().get("outer_hash")).containsExactly("01000000=inner_b", "03000000=inner_a");
            }),
            c("spin_lock", "xdp_spin", List.of(pkt(ipv4).withRepeat(3), pkt(arp())), o -> {
                // struct pair { u64 packets; bpf_spin_lock lock (read back as 0); u32 last_len; u64 twice; }
                assertThat(o.entry("pairs", "00000000")).isEqualTo(hex(le(4, (long) arp().length << 32, 8)));
                assertThat(o.maps().get("by_proto")).hasSize(ipv4.length % 4 == arp().length % 4 ? 1 : 2);
            }),
            c("callbacks_loop", "loop_squares", List.of(RunOptions.defaults()), ANY),
            c("callbacks_loop", "each_square", List.of(RunOptions.defaults()), ANY),
            // bpf_map_update_elem(&squares, &i, &v[i], 0) in a loop: &v[i] is fp-64 + (i << 3), i a u32 spilled and
            // bounded by a 32-bit compare (issue 21: once refused as math between fp pointer and an unbounded register)
            c("update_loop", "xdp_update_loop", List.of(pkt(ipv4)), o -> {
                assertThat(o.runs()).extracting(s -> s.substring(0, 8)).containsExactly("retval=2");
                for (int i = 0; i < 8; i++) assertThat(o.entry("squares", hex(le32(i)))).isEqualTo(hex(le((long) i * i + ipv4.length)));
            }));
        List<CorpusCase> all = new java.util.ArrayList<>(base);
        all.addAll(HelperCases.all());
        all.addAll(SkbResizeCases.all());
        all.addAll(TaskCases.all());
        all.addAll(VmaCases.all());
        all.addAll(HashCases.all());
        return all;
    }

    /** map_in_map.c's struct args: outer_key, inner_key, add, use_hash, result. */
    static byte[] mim(int outerKey, int innerKey, long add, boolean useHash) {
        return java.nio.ByteBuffer.allocate(24).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(outerKey).putInt(innerKey)
                .putLong(add).putInt(useHash ? 1 : 0).putInt(0).array();
    }

    /** A __sk_buff ctx_in with mark, cb[1] and ingress_ifindex. */
    static byte[] skb(int mark, int cb1, int ingress) {
        byte[] b = new byte[192];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        bb.putInt(8, mark).putInt(52, cb1).putInt(36, ingress);
        return b;
    }

    static String hex(byte[] b) { return java.util.HexFormat.of().formatHex(b); }
}
