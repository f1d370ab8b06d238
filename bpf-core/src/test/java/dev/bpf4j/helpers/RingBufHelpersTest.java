package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingBufHelpersTest {
    @Test void reserveWriteSubmitDiscardOutputQuery() {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("rb", MapType.RINGBUF, 0, 0, 4096, 0)));
             TestCall call = new TestCall().regions(maps.regions())) {
            HelperRegistry reg = BpfHelpers.registry(maps);
            long rb = maps.handle("rb");
            long s = call.call(reg, RINGBUF_RESERVE, rb, 16, 0);
            assertThat(s).isNotZero();
            assertThat(call.accessible(s, 16, true)).isTrue();
            NativeMemory.putLong(s, 0x1122);
            assertThat(call.call(reg, RINGBUF_SUBMIT, s, 0)).isZero();
            assertThatThrownBy(() -> call.call(reg, RINGBUF_SUBMIT, s, 0)).hasMessageContaining("not a pending sample");
            long d = call.call(reg, RINGBUF_RESERVE, rb, 8, 0);
            assertThat(call.call(reg, RINGBUF_DISCARD, d, 0)).isZero();
            assertThat(call.call(reg, RINGBUF_RESERVE, rb, 8, 1)).isZero(); // unknown flags: NULL
            assertThat(call.call(reg, RINGBUF_RESERVE, rb, 5000, 0)).isZero();
            long data = call.buffer(3, false);
            NativeMemory.putByte(data, (byte) 9);
            assertThat(call.call(reg, RINGBUF_OUTPUT, rb, data, 3, 0)).isZero();
            assertThat(call.call(reg, RINGBUF_OUTPUT, rb, data, 3, 8)).isEqualTo(-Errno.EINVAL);
            assertThatThrownBy(() -> call.call(reg, RINGBUF_OUTPUT, rb, data, 4, 0)).hasMessageContaining("data (r2)");
            assertThat(call.call(reg, RINGBUF_QUERY, rb, MapFlags.BPF_RB_RING_SIZE)).isEqualTo(4096);
            assertThat(call.call(reg, RINGBUF_QUERY, rb, MapFlags.BPF_RB_AVAIL_DATA)).isEqualTo(24 + 16 + 16);
            List<byte[]> got = ((RingBufMap) maps.map(0)).reader().drain();
            assertThat(got).hasSize(2);
            assertThat(got.get(0)).hasSize(16);
            assertThat(got.get(1)).containsExactly(9, 0, 0);
            assertThat(call.call(reg, RINGBUF_QUERY, rb, MapFlags.BPF_RB_AVAIL_DATA)).isZero();
            assertThatThrownBy(() -> call.call(reg, RINGBUF_SUBMIT, data, 0)).hasMessageContaining("bpf_ringbuf_submit");
        }
    }
}
