package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static dev.bpf4j.it.corpus.Packets.le;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Corpus cases of the packet, checksum, string, time and per-CPU helpers (objects/corpus/src/helpers_*.c):
 * each program takes its helper arguments from the packet, so the runs below put arguments at and past
 * every bound Linux checks, then {@link #FUZZ_RUNS} seeded random ones. The expected values are worked
 * out from net/core/filter.c and kernel/bpf/helpers.c; the kernel itself checks them again in
 * KernelCorpusTest, and both engines must agree in CorpusDifferentialTest.
 */
final class HelperCases {
    private HelperCases() {}

    static final long SEED = 0x30_2026L;
    static final int FUZZ_RUNS = 40;
    static final long EINVAL = -22, EFAULT = -14, EACCES = -13, ENOTSUPP = -524, ERANGE = -34;
    /** Headroom the frame keeps: 256 less sizeof(struct xdp_frame). */
    static final int MAX_HEAD_DOWN = 256 - 40;
    /** max_data_sz of bpf_prog_test_run_xdp: 4096 - 256 - 320. */
    static final int MAX_XDP_DATA = 3520;

    static List<CorpusCase> all() {
        Random rnd = new Random(SEED);
        List<CorpusCase> out = new ArrayList<>();
        out.add(xdpAdjust());
        out.add(fuzz("helpers_xdp", "xdp_adjust", rnd, HelperCases::randomXdpArgs, 96));
        out.add(xdpBytes());
        // each repeat of a test run starts where the last left the packet: 8 bytes more headroom used each time
        out.add(new CorpusCase("helpers_xdp", "grow_head", List.of(pkt(new byte[20], 0).withRepeat(3)), o -> {
            assertThat(o.runs().get(0)).startsWith("retval=2 data_out=" + String.format("%02x", 34 + 24));
            for (int run = 0; run < 3; run++) assertThat(res(o, "xdp_res", run, 0)).isEqualTo(hexLe(34 + 8 * run));
        }, null));
        out.add(fuzz("helpers_xdp", "xdp_bytes", rnd, HelperCases::randomXdpArgs, 96));
        out.add(csumDiff());
        out.add(fuzz("helpers_xdp", "xdp_csum_diff", rnd, r -> randomBytes(r, 96), 96));
        out.add(strtox());
        out.add(fuzz("helpers_str", "xdp_strtox", rnd, HelperCases::randomText, 48));
        out.add(new CorpusCase("helpers_str", "xdp_cpu_time", List.of(pkt(new byte[0], 0).withRepeat(3)), o ->
                {
                    for (int run = 0; run < 3; run++) assertThat(res(o, "str_res", run, 4)).as("facts bit mask").isEqualTo(hexLe(511));
                }, null));
        out.add(tcHelpers());
        out.add(fuzz("helpers_tc", "tc_helpers", rnd, HelperCases::randomTcArgs, 96));
        out.add(fuzz("helpers_tc", "sock_load", rnd, HelperCases::randomTcArgs, 96));
        return out;
    }

    // ---- XDP: adjust_head / _meta / _tail, redirect ------------------------------------------------

    /** struct xdp_args of helpers_xdp.c (the first 32 bytes; the csum bytes follow). */
    static byte[] xdpArgs(int op, int head, int tail, int meta, int redirectFlags) {
        return ByteBuffer.allocate(96).order(ByteOrder.LITTLE_ENDIAN).putInt(op).putInt(head).putInt(tail).putInt(meta)
                .putInt(redirectFlags).array();
    }

    private static CorpusCase xdpAdjust() {
        int len = 14 + 96 + 10;
        List<RunOptions> runs = List.of(
                pkt(xdpArgs(0, -MAX_HEAD_DOWN, 0, 0, 0), 10),          // 0: head down to the xdp_frame: ok
                pkt(xdpArgs(0, -MAX_HEAD_DOWN - 1, 0, 0, 0), 10),      // 1: one byte further: -EINVAL
                pkt(xdpArgs(0, len - 14, 0, 0, 0), 10),                // 2: head up to ETH_HLEN bytes left: ok
                pkt(xdpArgs(0, len - 13, 0, 0, 0), 10),                // 3: one byte more: -EINVAL
                pkt(xdpArgs(2, 0, MAX_XDP_DATA - len, -8, 0), 10),     // 4: tail to max_data_sz, 8 bytes of metadata
                pkt(xdpArgs(0, 0, MAX_XDP_DATA - len + 1, 0, 0), 10),  // 5: one byte past: -EINVAL
                pkt(xdpArgs(0, 0, 14 - len, 0, 0), 10),                // 6: tail down to ETH_HLEN: ok
                pkt(xdpArgs(0, 0, 13 - len, 0, 0), 10),                // 7: below: -EINVAL
                pkt(xdpArgs(1, -16, 0, -3, 0), 10),                    // 8: metadata of 3 bytes: -EACCES
                pkt(xdpArgs(3, -100, 0, -MAX_HEAD_DOWN, 0), 10),       // 9: meta takes the headroom, head has none left
                pkt(xdpArgs(2, -100, 0, -8, 0), 10),                   // 10: head first then meta: both ok, marker written
                pkt(xdpArgs(1, 0, 0, 4, 1), 10),                       // 11: meta past data: -EINVAL; redirect with a flag
                pkt(xdpArgs(0, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE, 0), 10));
        return new CorpusCase("helpers_xdp", "xdp_adjust", runs, o -> {
            assertThat(o.runs().get(0)).startsWith("retval=4 data_out=" + "00".repeat(MAX_HEAD_DOWN));
            assertThat(o.runs().get(11)).startsWith("retval=0 ");
            assertThat(o.runs().get(4)).startsWith("retval=4 data_out=44332211" + "00".repeat(4) + "ab");
            assertThat(o.runs().get(4).length()).isEqualTo("retval=4 data_out=".length() + 2 * (MAX_XDP_DATA + 8));
            // per run: head, meta, tail, length, metadata length
            long[][] expected = {
                {0, 0, 0, len + MAX_HEAD_DOWN, 0}, {EINVAL, 0, 0, len, 0}, {0, 0, 0, 14, 0}, {EINVAL, 0, 0, len, 0},
                {0, 0, 0, MAX_XDP_DATA, 8}, {0, 0, EINVAL, len, 0}, {0, 0, 0, 14, 0}, {0, 0, EINVAL, len, 0},
                {0, EACCES, 0, len + 16, 0}, {EINVAL, 0, 0, len, MAX_HEAD_DOWN}, {0, 0, 0, len + 100, 8},
                {0, EINVAL, 0, len, 0}, {EINVAL, EINVAL, EINVAL, len, 0}};
            for (int run = 0; run < expected.length; run++) {
                for (int slot = 0; slot < 5; slot++) {
                    assertThat(res(o, "xdp_res", run, slot)).as("xdp_adjust run %d slot %d", run, slot).isEqualTo(hexLe(expected[run][slot]));
                }
            }
        }, null);
    }

    private static byte[] randomXdpArgs(Random r) {
        int[] interesting = {0, 1, -1, 4, -4, 8, -8, -3, 13, 14, -14, -MAX_HEAD_DOWN, -MAX_HEAD_DOWN - 1, -MAX_HEAD_DOWN + 4, -256,
                96, 106, 107, MAX_XDP_DATA, MAX_XDP_DATA - 120, MAX_XDP_DATA - 119, -106, -107, Integer.MIN_VALUE, Integer.MAX_VALUE};
        int[] v = new int[4];
        for (int i = 0; i < 4; i++) v[i] = r.nextBoolean() ? interesting[r.nextInt(interesting.length)] : r.nextInt(4400) - 300;
        return xdpArgs(r.nextInt(4), v[0], v[1], v[2], r.nextInt(4) == 0 ? r.nextInt() : 0);
    }

    // ---- bpf_xdp_get_buff_len, bpf_xdp_load_bytes, bpf_xdp_store_bytes ----------------------------

    private static CorpusCase xdpBytes() {
        int len = 14 + 96 + 10;
        // xdp_args: head = load offset, tail = load length - 1, meta = store offset, redirect_flags = store length - 1
        List<RunOptions> runs = List.of(
                pkt(xdpArgs(0, len - 64, 63, len - 64, 63), 10),   // 0: the last 64 bytes, both ways: ok
                pkt(xdpArgs(0, len - 63, 63, len - 63, 63), 10),   // 1: one byte past: -EINVAL
                pkt(xdpArgs(0, 0x10000, 0, 0x10000, 0), 10),       // 2: offset above 0xffff: -EFAULT
                pkt(xdpArgs(0, -1, 0, -1, 0), 10));                // 3: offset 2^32 - 1: -EFAULT
        long[][] expected = {{len, 0, 0, 0}, {len, EINVAL, 0, EINVAL}, {len, EFAULT, 0, EFAULT}, {len, EFAULT, 0, EFAULT}};
        int[] slots = {0, 1, 2, 4};
        return new CorpusCase("helpers_xdp", "xdp_bytes", runs, o -> {
            for (int run = 0; run < expected.length; run++) {
                for (int i = 0; i < slots.length; i++) {
                    assertThat(res(o, "xdp_res", run, slots[i])).as("xdp_bytes run %d slot %d", run, slots[i]).isEqualTo(hexLe(expected[run][i]));
                }
            }
        }, null);
    }

    // ---- bpf_csum_diff -----------------------------------------------------------------------------

    private static CorpusCase csumDiff() {
        byte[] a = new byte[96];
        ByteBuffer b = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(20, 8).putInt(24, 8).putInt(28, 0);
        // from: de ad be ef de ad be ef; to: the same, so the diff is 0 -> folded 0xffff? no: csum_sub(x, x) = 0xffffffff
        byte[] word = {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef};
        for (int i = 0; i < 8; i++) {
            a[32 + i] = word[i % 4];
            a[64 + i] = word[i % 4];
        }
        return new CorpusCase("helpers_xdp", "xdp_csum_diff", List.of(pkt(a, 0)), o -> {
            // kernel selftest csum_diff_test: pushing de ad be ef de ad be ef with seed 0 gives 0x3b3b
            assertThat(res(o, "xdp_res", 0, 1)).isEqualTo(hexLe(0x3b3b));
            assertThat(res(o, "xdp_res", 0, 0)).isEqualTo(hexLe(0xffff));   // csum_sub(x, x): ~0 folded
            assertThat(res(o, "xdp_res", 0, 2)).isEqualTo(hexLe(0xffff - 0x3b3b)); // ~csum(from, ~0)
            assertThat(res(o, "xdp_res", 0, 3)).isEqualTo(hexLe(0));
        }, null);
    }

    // ---- bpf_strtol / bpf_strtoul ------------------------------------------------------------------

    static byte[] strArgs(int len, long flags, String text) {
        ByteBuffer b = ByteBuffer.allocate(48).order(ByteOrder.LITTLE_ENDIAN).putInt(len - 1).putInt(0).putLong(flags);
        byte[] t = text.getBytes(StandardCharsets.ISO_8859_1);
        b.put(t, 0, Math.min(t.length, 32));
        return b.array();
    }

    private static CorpusCase strtox() {
        List<RunOptions> runs = List.of(
                pkt(strArgs(8, 0, "  -0x1f!"), 0),
                pkt(strArgs(5, 10, "12345678"), 0),
                pkt(strArgs(32, 16, "ffffffffffffffff"), 0),
                pkt(strArgs(32, 16, "10000000000000000"), 0),
                pkt(strArgs(32, 0, "-9223372036854775808"), 0),
                pkt(strArgs(32, 0, "-9223372036854775809"), 0),
                pkt(strArgs(4, 7, "1234"), 0),
                pkt(strArgs(4, 0x20, "1234"), 0),
                pkt(strArgs(3, 0, "   "), 0),
                pkt(strArgs(4, 0, "0x"), 0),
                pkt(strArgs(4, 16, "0xg"), 0),
                pkt(strArgs(6, 0, "\u00a0017 "), 0));
        // per run: strtol's result and value, strtoul's result and value
        long[][] expected = {
            {7, -31, EINVAL, 0},                          // "  -0x1f!": 7 bytes; strtoul refuses '-'
            {5, 12345, 5, 12345},                         // len 5 of "12345678"
            {ERANGE, 0, 16, -1},                          // 2^64 - 1: too big for a long
            {ERANGE, 0, ERANGE, 0},                       // 2^64: overflow
            {20, Long.MIN_VALUE, EINVAL, 0},              // the smallest long
            {ERANGE, 0, EINVAL, 0},                       // one below
            {EINVAL, 0, EINVAL, 0},                       // base 7
            {EINVAL, 0, EINVAL, 0},                       // a flag above the base bits
            {EINVAL, 0, EINVAL, 0},                       // only white space
            {1, 0, 1, 0},                                 // "0x" and no hex digit: octal 0, 1 byte
            {EINVAL, 0, EINVAL, 0},                       // base 16, "0x" then no digit
            {4, 15, 4, 15}};                              // NBSP is white space in the kernel's ctype; "017" octal
        return new CorpusCase("helpers_str", "xdp_strtox", runs, o -> {
            for (int run = 0; run < expected.length; run++) {
                for (int slot = 0; slot < 4; slot++) {
                    assertThat(res(o, "str_res", run, slot)).as("strtox run %d slot %d", run, slot).isEqualTo(hexLe(expected[run][slot]));
                }
            }
        }, null);
    }

    private static byte[] randomText(Random r) {
        String alphabet = " \t\n-+0123456789abcdefxXgG\u00a0\u0000";
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(33);
        for (int i = 0; i < n; i++) s.append(alphabet.charAt(r.nextInt(alphabet.length())));
        long[] flags = {0, 8, 10, 16, 2, 7, 0x20, 0x30, 1L << 40};
        return strArgs(1 + r.nextInt(32), r.nextInt(3) == 0 ? flags[r.nextInt(flags.length)] : new long[] {0, 8, 10, 16}[r.nextInt(4)],
                s.toString());
    }

    // ---- tc: skb_load/store_bytes, l3/l4 csum replace, load_bytes_relative, csum_level, csum_update,
    //      set_hash, redirect -----------------------------------------------------------------------

    static byte[] tcArgs(int loadOff, int loadLen, int storeOff, int storeLen, long storeFlags, int csumOff, long from, long to,
                         long l3Flags, long l4Flags, int relOff, int relLen, int relHdr, int levelOps, long redirectFlags, long hash) {
        return ByteBuffer.allocate(96).order(ByteOrder.LITTLE_ENDIAN).putInt(loadOff).putInt(loadLen - 1).putInt(storeOff)
                .putInt(storeLen - 1).putLong(storeFlags).putInt(csumOff).putInt(0).putLong(from).putLong(to).putLong(l3Flags)
                .putLong(l4Flags).putInt(relOff).putInt(relLen - 1).putInt(relHdr).putInt(levelOps).putLong(redirectFlags)
                .putLong(hash).array();
    }

    private static CorpusCase tcHelpers() {
        int len = 14 + 96 + 10;
        List<RunOptions> runs = List.of(
                // 0: load the last 32 bytes; store 8 at the end; an IPv4-style 16-bit replace at 24
                pkt(tcArgs(len - 32, 32, len - 8, 8, 3, 24, 0x1234, 0x4321, 2, 2 | 0x10, 0, 16, 0, 0x00010101, 0, 0xabcdef), 10),
                // 1: one byte past: both -EFAULT; 4-byte replace; csum level query on CHECKSUM_NONE
                pkt(tcArgs(len - 31, 32, len - 7, 8, 0, 24, 0x11223344L, 0x55667788L, 4, 4, 0, 16, 1, 0, 1, 0), 10),
                // 2: bad store flags, odd csum offset, relative start beyond 0xffff, mangled-0 UDP rule
                pkt(tcArgs(0, 1, 0, 1, 4, 25, 0, 0, 0, 0x20, 0x10000, 1, 0, 0x02020201, 2, 1), 10),
                // 3: diff replace with from != 0: -EINVAL; field size 3: -EINVAL; l4 flag bits past BPF_F_IPV6
                pkt(tcArgs(0, 1, 0, 1, 0, 24, 1, 5, 0, 0x100, 0, 1, 2, 0x04040404, 0, 0), 10),
                // 4: replace by diff (from 0), csum offset at the last 2 bytes, relative at the tail
                pkt(tcArgs(0, 32, 0, 8, 1, len - 2, 0, 0x1234, 0, 0x40 | 0x20, len - 16, 16, 0, 0x01010101, 0, 7), 10),
                // 5: csum offset one past the end
                pkt(tcArgs(0, 32, 0, 8, 1, len - 1 + 1, 0, 0x1234, 0, 0, len - 15, 16, 0, 0x03010101, 0, 7), 10),
                // 6, 7: bpf_skb_pull_data (its len is the load offset) one past skb->len (-ENOMEM) and at it (0)
                pkt(tcArgs(len + 1, 1, 0, 1, 0, 24, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0), 10),
                pkt(tcArgs(len, 1, 0, 1, 0, 24, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0), 10));
        return new CorpusCase("helpers_tc", "tc_helpers", runs, o -> {
            assertThat(o.runs().get(0)).startsWith("retval=7 ");   // TC_ACT_REDIRECT
            assertThat(o.runs().get(1)).startsWith("retval=7 ");   // BPF_F_INGRESS is allowed
            assertThat(o.runs().get(2)).startsWith("retval=2 ");   // TC_ACT_SHOT for another flag
            assertThat(res(o, "tc_res", 6, 12)).isEqualTo(hexLe(-12));     // -ENOMEM
            assertThat(res(o, "tc_res", 7, 12)).isEqualTo(hexLe(0));
            assertThat(res(o, "tc_res", 6, 0)).isEqualTo(hexLe(EFAULT));
            assertThat(res(o, "tc_res", 5, 9)).isEqualTo(hexLe(ENOTSUPP)); // bpf_csum_update without CHECKSUM_COMPLETE
            assertThat(res(o, "tc_res", 5, 10)).isEqualTo(hexLe(7));       // bpf_set_hash, read back as skb->hash
            assertThat(res(o, "tc_res", 5, 11)).isEqualTo(hexLe(0));       // BPF_F_INVALIDATE_HASH cleared it
            // per run: load, store, l3, l4, relative results
            long[][] results = {
                {0, 0, 0, 0, 0}, {EFAULT, EFAULT, 0, 0, 0}, {0, EINVAL, EFAULT, EFAULT, EFAULT}, {0, 0, EINVAL, EINVAL, EFAULT},
                {0, 0, 0, 0, 0}, {0, 0, EFAULT, EFAULT, EFAULT}};
            int[] slots = {0, 3, 4, 5, 6};
            for (int run = 0; run < results.length; run++) {
                for (int i = 0; i < slots.length; i++) {
                    assertThat(res(o, "tc_res", run, slots[i])).as("tc run %d slot %d", run, slots[i]).isEqualTo(hexLe(results[run][i]));
                }
            }
            // csum_level, 4 x 16 bits: INC INC INC QUERY -> 0 0 0 2; QUERY on CHECKSUM_NONE -> -EACCES
            assertThat(res(o, "tc_res", 0, 8)).isEqualTo(hexLe(2));
            assertThat(res(o, "tc_res", 1, 8)).isEqualTo(hexLe(0xfff3fff3fff3fff3L));
            assertThat(res(o, "tc_res", 3, 8)).isEqualTo(hexLe(0xffeaffeaffeaffeaL)); // level 4: -EINVAL
        }, null);
    }

    private static byte[] randomTcArgs(Random r) {
        int len = 14 + 96 + 10;
        int[] offs = {0, 1, 2, 13, 14, 24, 25, len - 32, len - 31, len - 8, len - 7, len - 2, len - 1, len, 0xffff, 0x10000,
                Integer.MAX_VALUE, 0x80000000, -1};
        long[] flags = {0, 1, 2, 3, 4, 0x10, 0x12, 0x14, 0x20, 0x22, 0x40, 0x62, 0x80, 0x82, 0x100, 5, 0xf};
        java.util.function.IntSupplier off = () -> r.nextBoolean() ? offs[r.nextInt(offs.length)] : r.nextInt(len + 4);
        java.util.function.LongSupplier flag = () -> flags[r.nextInt(flags.length)];
        return tcArgs(off.getAsInt(), 1 + r.nextInt(32), off.getAsInt(), 1 + r.nextInt(8), r.nextInt(5) == 0 ? r.nextLong() & 7 : r.nextInt(4),
                off.getAsInt() & ~(r.nextInt(4) == 0 ? 0 : 1), r.nextInt(3) == 0 ? 0 : r.nextLong(), r.nextLong(), flag.getAsLong(),
                flag.getAsLong(), off.getAsInt(), 1 + r.nextInt(16), r.nextInt(4), r.nextInt(), r.nextInt(3), r.nextLong());
    }

    // ---- common ------------------------------------------------------------------------------------

    /** An IPv4 Ethernet frame whose bytes 14.. are {@code args}, then {@code extra} more bytes. */
    static RunOptions pkt(byte[] args, int extra) {
        byte[] p = new byte[14 + args.length + extra];
        System.arraycopy(Packets.DST, 0, p, 0, 6);
        System.arraycopy(Packets.SRC, 0, p, 6, 6);
        p[12] = 0x08;
        System.arraycopy(args, 0, p, 14, args.length);
        for (int i = 14 + args.length; i < p.length; i++) p[i] = (byte) (0xc0 + i);
        if (p.length < 14 + 96) return RunOptions.packet(java.util.Arrays.copyOf(p, Math.max(p.length, 14)));
        return RunOptions.packet(p);
    }

    private static CorpusCase fuzz(String object, String program, Random r, java.util.function.Function<Random, byte[]> args, int size) {
        List<RunOptions> runs = new ArrayList<>();
        for (int i = 0; i < FUZZ_RUNS; i++) runs.add(pkt(java.util.Arrays.copyOf(args.apply(r), size), r.nextInt(3) * 7));
        return new CorpusCase(object, program, runs, o -> { }, null);
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static String hexLe(long v) { return Corpus.hex(le(v)); }

    /** Result {@code slot} of run {@code run} in the program's result array (key run * 16 + slot, little-endian). */
    static String res(Outcome o, String map, int run, int slot) {
        return o.entry(map, Corpus.hex(Packets.le32(run * 16 + slot)));
    }
}
