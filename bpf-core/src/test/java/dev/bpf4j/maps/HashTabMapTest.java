package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static dev.bpf4j.maps.Bytes.u64;
import static org.assertj.core.api.Assertions.assertThat;

class HashTabMapTest {
    static HashTabMap hash(MapType t, int max) {
        return (HashTabMap) Maps.create(new MapDefinition("h", t, 4, 8, max, 0));
    }

    @Test void insertLookupUpdateDelete() {
        try (HashTabMap m = hash(MapType.HASH, 8)) {
            assertThat(m.lookup(u32(1))).isEmpty();
            m.update(u32(1), u64(10), MapFlags.BPF_NOEXIST);
            m.update(u32(2), u64(20), MapFlags.BPF_ANY);
            m.update(u32(1), u64(11), MapFlags.BPF_EXIST);
            assertThat(u64(m.lookup(u32(1)).orElseThrow(), 0)).isEqualTo(11);
            assertThat(m.size()).isEqualTo(2);
            m.delete(u32(1));
            assertThat(m.lookup(u32(1))).isEmpty();
            assertThat(u64(m.lookupAndDelete(u32(2)), 0)).isEqualTo(20);
            assertThat(m.size()).isZero();
        }
    }

    @Test void kernelFlagErrors() {
        try (HashTabMap m = hash(MapType.HASH, 8)) {
            m.update(u32(1), u64(10), 0);
            assertThat(errno(() -> m.update(u32(1), u64(1), MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EEXIST);
            assertThat(errno(() -> m.update(u32(2), u64(1), MapFlags.BPF_EXIST))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> m.update(u32(2), u64(1), 3))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.update(u32(2), u64(1), MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.delete(u32(2)))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> m.lookupAndDelete(u32(2)))).isEqualTo(Errno.ENOENT);
        }
    }

    @Test void fullMapIsE2bigButReplacingStillWorks() {
        try (HashTabMap m = hash(MapType.HASH, 3)) {
            for (int i = 0; i < 3; i++) m.update(u32(i), u64(i), 0);
            assertThat(errno(() -> m.update(u32(9), u64(9), 0))).isEqualTo(Errno.E2BIG);
            m.update(u32(2), u64(22), 0);
            m.delete(u32(0));
            m.update(u32(9), u64(9), 0);
            assertThat(m.keyList()).hasSize(3);
        }
    }

    @Test void iterationVisitsEveryKeyOnce() {
        try (HashTabMap m = hash(MapType.HASH, 100)) {
            for (int i = 0; i < 100; i++) m.update(u32(i * 7919), u64(i), 0);
            Set<Integer> seen = new HashSet<>();
            for (byte[] k : m.keys()) assertThat(seen.add(Bytes.u32(k))).isTrue();
            assertThat(seen).hasSize(100);
            assertThat(m.nextKey(u32(-5)).map(Bytes::u32)).isEqualTo(m.nextKey(null).map(Bytes::u32)); // unknown key restarts
        }
    }

    @Test void createChecks() {
        assertThat(errno(() -> Maps.create(new MapDefinition("h", MapType.HASH, 0, 8, 1, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("h", MapType.HASH, 4, 8, 0, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("h", MapType.HASH, 4, 8, 1, MapFlags.BPF_F_NO_COMMON_LRU)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("h", MapType.LRU_HASH, 4, 8, 1, MapFlags.BPF_F_NO_PREALLOC)))).isEqualTo(Errno.ENOTSUPP);
        assertThat(errno(() -> Maps.create(new MapDefinition("h", MapType.PERCPU_HASH, 4, 40000, 1, 0)))).isEqualTo(Errno.E2BIG);
    }

    @Test void valuePointerIsStableAcrossUpdatesAndInsideTheRegion() {
        try (HashTabMap m = hash(MapType.HASH, 16)) {
            long key = NativeMemory.allocate(4);
            long val = NativeMemory.allocate(8);
            try {
                NativeMemory.putInt(key, 1234);
                NativeMemory.putLong(val, 5);
                assertThat(m.programLookup(key)).isZero();
                assertThat(m.programUpdate(key, val, MapFlags.BPF_NOEXIST)).isZero();
                assertThat(m.programUpdate(key, val, MapFlags.BPF_NOEXIST)).isEqualTo(-Errno.EEXIST);
                long p = m.programLookup(key);
                assertThat(m.regions().get(0).allows(p, 8, true)).isTrue();
                for (int i = 0; i < 15; i++) m.update(u32(i), u64(i), 0); // fills the map
                m.update(u32(1234), u64(77), 0);
                assertThat(m.programLookup(key)).isEqualTo(p);
                assertThat(NativeMemory.getLong(p)).isEqualTo(77);
                assertThat(m.programDelete(key)).isZero();
                assertThat(m.programDelete(key)).isEqualTo(-Errno.ENOENT);
            } finally {
                NativeMemory.free(key);
                NativeMemory.free(val);
            }
        }
    }

    @Test void percpuHashLayoutAndProgramUpdateZeroesOtherCpus() {
        int cpus = Cpus.possible();
        try (HashTabMap m = hash(MapType.PERCPU_HASH, 4)) {
            byte[] all = new byte[8 * cpus];
            for (int c = 0; c < cpus; c++) all[c * 8] = (byte) (c + 1);
            m.update(u32(1), all, 0);
            assertThat(m.lookup(u32(1)).orElseThrow()).isEqualTo(all);
            assertThat(errno(() -> m.update(u32(2), new byte[8], 0))).isEqualTo(cpus == 1 ? 0 : Errno.EINVAL);
            long key = NativeMemory.allocate(4);
            long val = NativeMemory.allocate(8);
            try {
                NativeMemory.putInt(key, 3);
                NativeMemory.putLong(val, 0x55);
                assertThat(m.programUpdate(key, val, 0)).isZero();
                byte[] v = m.lookup(u32(3)).orElseThrow();
                int set = 0;
                for (int c = 0; c < cpus; c++) if (Bytes.u64(v, c * 8) == 0x55) set++; else assertThat(Bytes.u64(v, c * 8)).isZero();
                assertThat(set).isEqualTo(1);
                long p = m.programLookup(key);
                assertThat(NativeMemory.getLong(p)).isEqualTo(0x55);
            } finally {
                NativeMemory.free(key);
                NativeMemory.free(val);
            }
        }
    }
}
