package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.bpf4j.it.corpus.Packets.le;
import static dev.bpf4j.it.corpus.Packets.le32;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two-stage object API: edits before load, global data, errors, engine override, close. */
class ObjectApiTest {
    static BpfObject load(String name) { return BpfObject.open(CorpusCase.DIR.resolve(name + ".o")).load("interp"); }

    @Test void editedMapSizeAndConstVolatileReachTheLoadedObject() {
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("syscall_ctx.o")).variable("scale", 5)
                .load(ObjectLoadOptions.defaults())) {
            RunResult r = obj.program("syscall_calc").run(RunOptions.defaults().withCtxIn(le32(1, 4, 5, 0, 0, 0)));
            assertThat(ByteBuffer.wrap(r.ctxOut()).order(ByteOrder.LITTLE_ENDIAN).getInt(12)).isEqualTo(4 * 5 * 5);
        }
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("xdp_flows.o")).maxEntries("flows", 7).load("interp")) {
            assertThat(obj.map("flows").maxEntries()).isEqualTo(7);
        }
    }

    @Test void rodataIsFrozenAndReadOnlyForPrograms() {
        try (BpfObject obj = load("syscall_ctx")) {
            var rodata = obj.map("syscall_.rodata");
            assertThat(rodata.isFrozen()).isTrue();
            assertThat(obj.mapTable().regions()).anySatisfy(r -> {
                assertThat(r.name()).contains("syscall_.rodata");
                assertThat(r.writable()).isFalse();
            });
            assertThatThrownBy(() -> rodata.update(new byte[4], new byte[4], 0)).isInstanceOf(BpfMapException.class);
            assertThat(obj.map("syscall_.data").lookup(new byte[4])).contains(le32(17));
        }
    }

    @Test void runtimeErrorsNameProgramPcAndSourceLine() {
        try (BpfObject obj = load("raw_tp")) {
            // one argument where the program reads two: args[1] is outside the u64 args[] region
            assertThatThrownBy(() -> obj.program("raw_tp_args").run(RunOptions.defaults().withCtxIn(le(7))))
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS))
                    .hasMessageContaining("[at raw_tp_args pc ")
                    .hasMessageContaining("./src/raw_tp.c:");
        }
    }

    @Test void loadErrorsNameProgramPcAndSourceLine() {
        // the socket filter loaded as XDP: LD ABS is refused outside socket filters and tc
        var open = BpfObject.open(CorpusCase.DIR.resolve("socket_filter.o"))
                .program("sock_dns", p -> p.withType(dev.bpf4j.object.ProgramType.XDP));
        assertThatThrownBy(() -> open.load("interp")).isInstanceOf(BpfLoadException.class)
                .hasMessageMatching("(?s)load program sock_dns pc \\d+ \\(\\./src/socket_filter\\.c:\\d+:\\d+: .*");
    }

    @Test void wrongInputsAreClearErrors() {
        try (BpfObject obj = load("xdp_swap_mac")) {
            assertThatThrownBy(() -> obj.program("xdp_swap_mac").run(RunOptions.packet(new byte[13])))
                    .hasMessageContaining("at least 14 bytes");
            assertThatThrownBy(() -> obj.program("nope")).hasMessageContaining("loaded: xdp_swap_mac, xdp_md_fields");
        }
        try (BpfObject obj = load("tc_skb")) {
            byte[] ctx = new byte[192];
            ctx[0] = 1; // __sk_buff.len may not be set
            assertThatThrownBy(() -> obj.program("tc_mark").run(RunOptions.packet(Packets.udp(1, 1)).withCtxIn(ctx)))
                    .hasMessageContaining("BPF_PROG_TEST_RUN refuses");
        }
    }

    @Test void socketFilterSeesTheNetworkHeaderAndZeroedLinkHeaderOut() {
        try (BpfObject obj = load("socket_len")) {
            byte[] frame = Packets.udp(53, 0);
            RunResult r = obj.program("sock_len").run(RunOptions.packet(frame));
            assertThat(r.retval()).isEqualTo(frame.length - 14 + 8 + 3000);
            assertThat(java.util.Arrays.copyOf(r.dataOut(), 14)).isEqualTo(new byte[14]);
            assertThat(java.util.Arrays.copyOfRange(r.dataOut(), 14, frame.length)).isEqualTo(java.util.Arrays.copyOfRange(frame, 14, frame.length));
            assertThat(ByteBuffer.wrap(r.ctxOut()).order(ByteOrder.LITTLE_ENDIAN).getInt(40)).as("ifindex").isEqualTo(1);
            assertThat(ByteBuffer.wrap(r.ctxOut()).order(ByteOrder.LITTLE_ENDIAN).getInt(160)).as("wire_len").isEqualTo(frame.length - 14);
        }
    }

    @Test void engineOverrideAndRepeatShareTheMaps() {
        try (BpfObject obj = load("xdp_percpu")) {
            RunResult r = obj.program("xdp_percpu_count").run(RunOptions.packet(Packets.arp()).withRepeat(3).withEngine("jit"));
            assertThat(r.retval()).isEqualTo(2);
            obj.program("xdp_percpu_count").run(RunOptions.packet(Packets.arp()));
            long total = 0;
            ByteBuffer all = ByteBuffer.wrap(obj.map("pcpu_stats").lookup(new byte[4]).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN);
            while (all.remaining() >= 8) total += all.getLong();
            assertThat(total).isEqualTo(4);
        }
    }

    @Test void closedObjectsRefuseUse() {
        BpfObject obj = load("xdp_swap_mac");
        var p = obj.program("xdp_swap_mac");
        obj.close();
        assertThatThrownBy(() -> obj.map("x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> p.run(RunOptions.packet(Packets.arp()))).isInstanceOf(IllegalStateException.class);
    }
}
