package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static dev.bpf4j.maps.Bytes.u64;
import static org.assertj.core.api.Assertions.assertThat;

class LruHashTest {
    @Test void fullLruEvictsTheOldestUnreferencedEntryInsteadOfFailing() {
        try (HashTabMap m = HashTabMapTest.hash(MapType.LRU_HASH, 4)) {
            for (int i = 0; i < 4; i++) m.update(u32(i), u64(i), 0);
            long key = NativeMemory.allocate(4);
            try {
                for (int i = 1; i < 4; i++) { // programs use keys 1..3
                    NativeMemory.putInt(key, i);
                    assertThat(m.programLookup(key)).isNotZero();
                }
            } finally {
                NativeMemory.free(key);
            }
            m.update(u32(4), u64(4), MapFlags.BPF_NOEXIST);
            assertThat(m.lookup(u32(0))).isEmpty();
            for (int i = 1; i <= 4; i++) assertThat(m.lookup(u32(i))).isPresent();
            assertThat(m.size()).isEqualTo(4);
        }
    }

    @Test void manyInsertsNeverFailAndKeepTheNewest() {
        try (HashTabMap m = HashTabMapTest.hash(MapType.LRU_HASH, 16)) {
            for (int i = 0; i < 1000; i++) m.update(u32(i), u64(i), MapFlags.BPF_NOEXIST);
            assertThat(m.keyList()).hasSize(16);
            assertThat(m.lookup(u32(999))).isPresent();
            assertThat(m.lookup(u32(0))).isEmpty();
        }
    }

    @Test void flagsAsTheKernelChecksThem() {
        try (HashTabMap m = HashTabMapTest.hash(MapType.LRU_HASH, 4)) {
            m.update(u32(1), u64(1), 0);
            assertThat(errno(() -> m.update(u32(1), u64(1), MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EEXIST);
            assertThat(errno(() -> m.update(u32(2), u64(1), MapFlags.BPF_EXIST))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> m.update(u32(2), u64(1), MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
            assertThat(m.keyList()).hasSize(1);
        }
    }

    @Test void lruPercpuEvictsToo() {
        int cpus = Cpus.possible();
        try (HashTabMap m = HashTabMapTest.hash(MapType.LRU_PERCPU_HASH, 2)) {
            for (int i = 0; i < 5; i++) m.update(u32(i), new byte[8 * cpus], 0);
            assertThat(m.keyList()).hasSize(2);
            assertThat(m.lookup(u32(4))).hasValueSatisfying(v -> assertThat(v).hasSize(8 * cpus));
        }
    }

    @Test void concurrentInsertsIntoASmallLruNeverFail() throws Exception {
        try (HashTabMap m = HashTabMapTest.hash(MapType.LRU_HASH, 64)) {
            AtomicReference<Throwable> err = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int base = t * 100_000;
                ts.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 5000; i++) m.update(u32(base + i), u64(base + i), 0);
                    } catch (Throwable e) {
                        err.compareAndSet(null, e);
                    }
                }));
            }
            ts.forEach(Thread::start);
            for (Thread t : ts) t.join();
            assertThat(err.get()).isNull();
            List<byte[]> keys = m.keyList();
            assertThat(keys).hasSizeBetween(1, 64);
            for (byte[] k : keys) assertThat(u64(m.lookup(k).orElseThrow(), 0)).isEqualTo(Bytes.u32(k));
        }
    }
}
