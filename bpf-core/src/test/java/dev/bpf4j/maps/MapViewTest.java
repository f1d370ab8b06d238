package dev.bpf4j.maps;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.bpf4j.maps.Bytes.errno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MapViewTest {
    @Test void typedHashView() {
        try (BpfMap m = Maps.create(new MapDefinition("h", MapType.HASH, 4, 8, 8, 0))) {
            MapView<Integer, Long> v = MapView.of(m, Codec.U32, Codec.U64);
            v.put(1, 100L);
            v.put(2, -5L);
            assertThat(v.get(1)).contains(100L);
            assertThat(v.get(3)).isEmpty();
            assertThat(v.snapshot()).isEqualTo(Map.of(1, 100L, 2, -5L));
            assertThat(v.remove(1)).isTrue();
            assertThat(v.remove(1)).isFalse();
            assertThat(errno(() -> v.put(2, 1L, MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EEXIST);
            assertThatThrownBy(() -> MapView.of(m, Codec.U64, Codec.U64)).hasMessageContaining("key/value sizes 4/8");
        }
    }

    @Test void perCpuViewHasOneValuePerPossibleCpu() {
        try (BpfMap m = Maps.create(new MapDefinition("pc", MapType.PERCPU_ARRAY, 4, 4, 2, 0))) {
            MapView<Integer, Integer> v = MapView.of(m, Codec.U32, Codec.U32);
            v.put(1, 9);
            assertThat(v.getPerCpu(1).orElseThrow()).hasSize(Cpus.possible()).containsOnly(9);
            assertThat(v.getPerCpu(0).orElseThrow()).containsOnly(0);
        }
    }

    @Test void queueSyscallSideIsPeekPushPop() {
        try (BpfMap q = Maps.create(new MapDefinition("q", MapType.QUEUE, 0, 4, 2, 0))) {
            q.update(new byte[0], Bytes.u32(5), 0);
            q.update(new byte[0], Bytes.u32(6), 0);
            assertThat(errno(() -> q.update(new byte[0], Bytes.u32(7), 0))).isEqualTo(Errno.E2BIG);
            assertThat(q.lookup(new byte[0]).map(Bytes::u32)).contains(5);
            assertThat(Bytes.u32(q.lookupAndDelete(new byte[0]))).isEqualTo(5);
            assertThat(Bytes.u32(q.lookupAndDelete(new byte[0]))).isEqualTo(6);
            assertThat(errno(() -> q.lookupAndDelete(new byte[0]))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> q.delete(new byte[0]))).isEqualTo(Errno.EINVAL);
        }
    }
}
