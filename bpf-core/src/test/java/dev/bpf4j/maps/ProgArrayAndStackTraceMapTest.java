package dev.bpf4j.maps;

import org.junit.jupiter.api.Test;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static org.assertj.core.api.Assertions.assertThat;

class ProgArrayAndStackTraceMapTest {
    @Test void progArrayHoldsOpaqueProgramsWithKernelErrors() {
        try (ProgArrayMap m = (ProgArrayMap) Maps.create(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0))) {
            Object prog = new Object();
            m.set(2, prog, MapFlags.BPF_ANY);
            assertThat(m.program(2)).isSameAs(prog);
            assertThat(m.program(3)).isNull();
            assertThat(m.program(-1)).isNull();
            assertThat(errno(() -> m.set(2, prog, MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.set(4, prog, 0))).isEqualTo(Errno.E2BIG);
            assertThat(errno(() -> m.clear(3))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> m.delete(u32(9)))).isEqualTo(Errno.E2BIG);
            m.clear(2);
            assertThat(m.program(2)).isNull();
            assertThat(m.programLookup(0)).isZero();
        }
        assertThat(errno(() -> Maps.create(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 8, 4, 0)))).isEqualTo(Errno.EINVAL);
    }

    @Test void stackTraceStorage() {
        try (StackTraceMap m = (StackTraceMap) Maps.create(new MapDefinition("st", MapType.STACK_TRACE, 4, 8 * 4, 5, 0))) {
            assertThat(m.buckets()).isEqualTo(8);
            assertThat(m.maxDepth()).isEqualTo(4);
            assertThat(m.exchange(3, new StackTraceMap.Bucket(0x1234, new long[] {0x10, 0x20}))).isNull();
            byte[] v = m.lookup(u32(3)).orElseThrow();
            assertThat(v).hasSize(32);
            assertThat(Bytes.u64(v, 0)).isEqualTo(0x10);
            assertThat(Bytes.u64(v, 8)).isEqualTo(0x20);
            assertThat(Bytes.u64(v, 16)).isZero();
            assertThat(m.bucket(3).hash()).isEqualTo(0x1234);
            assertThat(m.bucket(3).nr()).isEqualTo(2);
            assertThat(errno(() -> m.exchange(1, new StackTraceMap.Bucket(0, new long[5])))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.exchange(8, null))).isEqualTo(Errno.E2BIG);
            assertThat(errno(() -> m.update(u32(1), new byte[32], 0))).isEqualTo(Errno.EINVAL);
            m.exchange(6, new StackTraceMap.Bucket(1, new long[] {1}));
            assertThat(m.keyList()).extracting(Bytes::u32).containsExactly(3, 6);
            assertThat(m.nextKey(u32(3)).map(Bytes::u32)).contains(6);
            assertThat(m.nextKey(u32(4)).map(Bytes::u32)).contains(3); // empty bucket restarts from 0
            m.delete(u32(3));
            assertThat(errno(() -> m.delete(u32(3)))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> m.delete(u32(8)))).isEqualTo(Errno.E2BIG);
            assertThat(m.compareAndSet(6, m.bucket(6), null)).isTrue();
            assertThat(m.keyList()).isEmpty();
        }
        assertThat(errno(() -> Maps.create(new MapDefinition("st", MapType.STACK_TRACE, 4, 12, 5, 0)))).isEqualTo(Errno.EINVAL);
    }
}
