package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The packet helpers' bodies on a hand-built sk_buff / xdp_buff: checksum updates agree with a checksum
 * computed from scratch (RFC 1071 / 1624), and calls Linux's verifier would refuse end the run with
 * BAD_HELPER_ARGUMENT rather than touching memory. (Both engines and the Linux kernel run the same
 * helpers in it-tests' corpus, HelperCases.)
 */
class PacketHelpersTest {
    private static final HelperRegistry HELPERS = BpfHelpers.registry(MapTable.of(List.of()));

    /** A 20-byte IPv4 header (RFC 1071's example addresses) behind 14 bytes of Ethernet, in a tc skb. */
    private static final byte[] FRAME = {
        0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 8, 0,
        0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0, (byte) 0xc0, (byte) 0xa8, 0, 1, (byte) 0xc0, (byte) 0xa8, 0, (byte) 0xc7};

    /** The RFC 1071 checksum of the IPv4 header at {@code at}, as it lies in the packet (big-endian). */
    private static int ipChecksum(long at) {
        long sum = 0;
        for (int i = 0; i < 20; i += 2) {
            if (i == 10) continue;
            sum += ((NativeMemory.getByte(at + i) & 0xff) << 8) | (NativeMemory.getByte(at + i + 1) & 0xff);
        }
        while ((sum >> 16) != 0) sum = (sum & 0xffff) + (sum >> 16);
        return (int) (~sum & 0xffff);
    }

    private static int storedChecksum(long at) {
        return ((NativeMemory.getByte(at + 10) & 0xff) << 8) | (NativeMemory.getByte(at + 11) & 0xff);
    }

    private static void putChecksum(long at, int sum) {
        NativeMemory.putByte(at + 10, (byte) (sum >> 8));
        NativeMemory.putByte(at + 11, (byte) sum);
    }

    private static long skb(TestCall call, boolean writable) {
        long ctx = call.buffer(192, true);
        long pkt = call.buffer(FRAME.length, writable);
        NativeMemory.write(pkt, FRAME, 0, FRAME.length);
        PacketBuffer p = new PacketBuffer(PacketBuffer.Kind.SKB, ctx, PacketContext.SK_BUFF, pkt, pkt + FRAME.length, pkt,
                pkt + FRAME.length, writable, pkt, pkt + 14);
        call.runContext = RunContext.builder().arg(1, ctx).packetBuffer(p).build();
        return ctx;
    }

    @Test
    void l3CsumReplaceMatchesAFreshChecksum() {
        try (TestCall call = new TestCall()) {
            long ctx = skb(call, true);
            long ip = call.runContext.packetBuffer().data() + 14;
            putChecksum(ip, ipChecksum(ip));
            // TTL 64 -> 63: the 16-bit word TTL|protocol changes (big-endian values as the program passes them)
            int from = Short.reverseBytes((short) 0x4011) & 0xffff, to = Short.reverseBytes((short) 0x3f11) & 0xffff;
            NativeMemory.putByte(ip + 8, (byte) 0x3f);
            assertThat(call.call(HELPERS, HelperIds.L3_CSUM_REPLACE, ctx, 14 + 10, from, to, 2)).isZero();
            assertThat(storedChecksum(ip)).isEqualTo(ipChecksum(ip));
            // destination address 192.168.0.199 -> 10.0.0.1, a 4-byte replace
            int oldAddr = NativeMemory.getInt(ip + 16), newAddr = Integer.reverseBytes(0x0a000001);
            NativeMemory.putInt(ip + 16, newAddr);
            assertThat(call.call(HELPERS, HelperIds.L3_CSUM_REPLACE, ctx, 14 + 10, oldAddr & 0xffffffffL, newAddr & 0xffffffffL, 4)).isZero();
            assertThat(storedChecksum(ip)).isEqualTo(ipChecksum(ip));
            // the same through bpf_csum_diff and a by-diff replace
            long from4 = call.buffer(4, true), to4 = call.buffer(4, true);
            NativeMemory.putInt(from4, newAddr);
            NativeMemory.putInt(to4, Integer.reverseBytes(0x0a000002));
            long diff = call.call(HELPERS, HelperIds.CSUM_DIFF, from4, 4, to4, 4, 0);
            NativeMemory.putInt(ip + 16, NativeMemory.getInt(to4));
            assertThat(call.call(HELPERS, HelperIds.L3_CSUM_REPLACE, ctx, 14 + 10, 0, diff, 0)).isZero();
            assertThat(storedChecksum(ip)).isEqualTo(ipChecksum(ip));
        }
    }

    @Test
    void callsTheVerifierWouldRefuseEndTheRun() {
        try (TestCall call = new TestCall()) {
            long ctx = skb(call, false);
            long hidden = call.hidden(16);
            long buf = call.buffer(16, true);
            // the destination is not the program's memory
            assertBad(() -> call.call(HELPERS, HelperIds.SKB_LOAD_BYTES, ctx, 0, hidden, 16), "not writable");
            // r1 is not the ctx
            assertBad(() -> call.call(HELPERS, HelperIds.SKB_LOAD_BYTES, buf, 0, buf, 16), "is not the program's context");
            // an XDP helper on an skb, a writing helper on a socket filter's read-only packet
            assertBad(() -> call.call(HELPERS, HelperIds.XDP_ADJUST_HEAD, ctx, 0), "xdp_md");
            assertBad(() -> call.call(HELPERS, HelperIds.SKB_STORE_BYTES, ctx, 0, buf, 4, 0), "socket filter");
            // and the packet helpers in a run without a packet
            call.runContext = null;
            assertBad(() -> call.call(HELPERS, HelperIds.SKB_LOAD_BYTES, ctx, 0, buf, 16), "run with a packet");
            assertBad(() -> call.call(HELPERS, HelperIds.REDIRECT, 1, 0), "XDP and tc programs only");
        }
    }

    @Test
    void adjustHeadMovesTheRegionAndTheCtxFields() {
        try (TestCall call = new TestCall()) {
            long ctx = call.buffer(24, false);
            long frame = call.hidden(4096);
            long data = frame + 256;
            PacketBuffer p = new PacketBuffer(PacketBuffer.Kind.XDP, ctx, PacketContext.XDP_MD, frame, data + 3520, data, data + 60,
                    true, 0, 0);
            call.region(p.region());
            call.runContext = RunContext.builder().arg(1, ctx).packetBuffer(p).build();
            assertThat(call.call(HELPERS, HelperIds.XDP_ADJUST_HEAD, ctx, -16)).isZero();
            assertThat(NativeMemory.getInt(ctx) & 0xffffffffL).isEqualTo((data - 16) & 0xffffffffL);
            assertThat(call.accessible(data - 16, 76, true)).isTrue();
            assertThat(call.call(HELPERS, HelperIds.XDP_ADJUST_TAIL, ctx, -30)).isZero();
            assertThat(NativeMemory.getInt(ctx + 4) & 0xffffffffL).isEqualTo((data + 30) & 0xffffffffL);
            assertThat(call.accessible(data + 29, 1, false)).isTrue();
            assertThat(call.accessible(data + 30, 1, false)).isFalse();
            assertThat(call.call(HELPERS, HelperIds.XDP_GET_BUFF_LEN, ctx)).isEqualTo(46);
        }
    }

    private static void assertBad(org.assertj.core.api.ThrowableAssert.ThrowingCallable c, String text) {
        assertThatThrownBy(c).isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT))
                .hasMessageContaining(text);
    }
}
