package dev.bpf4j.maps;

import org.junit.jupiter.api.Test;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static org.assertj.core.api.Assertions.assertThat;

class QueueStackMapTest {
    private static QueueStackMap make(MapType t, int max) {
        return (QueueStackMap) Maps.create(new MapDefinition("q", t, 0, 4, max, 0));
    }

    @Test void queueIsFifoAcrossWrapAround() {
        try (QueueStackMap q = make(MapType.QUEUE, 3)) {
            int next = 0, expect = 0;
            for (int round = 0; round < 10; round++) {
                q.pushValue(u32(next++), 0);
                q.pushValue(u32(next++), 0);
                assertThat(q.pop().map(Bytes::u32)).contains(expect++);
                assertThat(q.pop().map(Bytes::u32)).contains(expect++);
            }
            assertThat(q.pop()).isEmpty();
        }
    }

    @Test void stackIsLifo() {
        try (QueueStackMap s = make(MapType.STACK, 3)) {
            for (int i = 1; i <= 3; i++) s.pushValue(u32(i), 0);
            assertThat(s.peek().map(Bytes::u32)).contains(3);
            assertThat(s.pop().map(Bytes::u32)).contains(3);
            assertThat(s.pop().map(Bytes::u32)).contains(2);
            s.pushValue(u32(9), 0);
            assertThat(s.pop().map(Bytes::u32)).contains(9);
            assertThat(s.pop().map(Bytes::u32)).contains(1);
            assertThat(s.pop()).isEmpty();
        }
    }

    @Test void fullIsE2bigUnlessExistOverwritesTheOldest() {
        try (QueueStackMap q = make(MapType.QUEUE, 2)) {
            q.pushValue(u32(1), 0);
            q.pushValue(u32(2), 0);
            assertThat(errno(() -> q.pushValue(u32(3), 0))).isEqualTo(Errno.E2BIG);
            q.pushValue(u32(3), MapFlags.BPF_EXIST);
            assertThat(q.size()).isEqualTo(2);
            assertThat(q.pop().map(Bytes::u32)).contains(2);
            assertThat(q.pop().map(Bytes::u32)).contains(3);
        }
        try (QueueStackMap s = make(MapType.STACK, 2)) {
            s.pushValue(u32(1), 0);
            s.pushValue(u32(2), 0);
            s.pushValue(u32(3), MapFlags.BPF_EXIST); // drops 1, the oldest
            assertThat(s.pop().map(Bytes::u32)).contains(3);
            assertThat(s.pop().map(Bytes::u32)).contains(2);
            assertThat(s.pop()).isEmpty();
        }
    }

    @Test void errorsAsTheKernel() {
        try (QueueStackMap q = make(MapType.QUEUE, 2)) {
            assertThat(errno(() -> q.pushValue(u32(1), MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> q.pushValue(u32(1), 4))).isEqualTo(Errno.EINVAL);
            byte[] out = {1, 2, 3, 4};
            assertThat(q.get(out, true)).isEqualTo(-Errno.ENOENT);
            assertThat(out).containsOnly(0);
            assertThat(q.programUpdate(0, 0, 0)).isEqualTo(-Errno.EINVAL);
            assertThat(q.programDelete(0)).isEqualTo(-Errno.EINVAL);
            assertThat(q.programLookup(0)).isZero();
        }
        assertThat(errno(() -> Maps.create(new MapDefinition("q", MapType.QUEUE, 4, 4, 2, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("q", MapType.STACK, 0, 4, 0, 0)))).isEqualTo(Errno.EINVAL);
    }
}
