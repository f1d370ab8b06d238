package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.maps.Bytes.u32;
import static dev.bpf4j.maps.Bytes.u64;
import static org.assertj.core.api.Assertions.assertThat;

class HashConcurrencyTest {
    private static void parallel(int threads, java.util.function.IntConsumer body) throws InterruptedException {
        AtomicReference<Throwable> err = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts.add(new Thread(() -> {
                try {
                    body.accept(id);
                } catch (Throwable e) {
                    err.compareAndSet(null, e);
                }
            }));
        }
        ts.forEach(Thread::start);
        for (Thread t : ts) t.join();
        if (err.get() != null) throw new AssertionError(err.get());
    }

    @Test void concurrentInsertsLoseNothing() throws Exception {
        int threads = 4, per = 3000;
        try (HashTabMap m = HashTabMapTest.hash(MapType.HASH, threads * per)) {
            parallel(threads, t -> {
                for (int i = 0; i < per; i++) m.update(u32(t * per + i), u64(t * 1_000_000L + i), MapFlags.BPF_NOEXIST);
            });
            assertThat(m.size()).isEqualTo(threads * per);
            assertThat(m.keyList()).hasSize(threads * per);
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < per; i++) assertThat(u64(m.lookup(u32(t * per + i)).orElseThrow(), 0)).isEqualTo(t * 1_000_000L + i);
            }
        }
    }

    @Test void concurrentChurnKeepsTheTableConsistent() throws Exception {
        try (HashTabMap m = HashTabMapTest.hash(MapType.HASH, 256)) {
            parallel(4, t -> {
                java.util.Random r = new java.util.Random(t);
                for (int i = 0; i < 20_000; i++) {
                    int k = r.nextInt(512);
                    int op = r.nextInt(3);
                    try {
                        if (op == 0) m.update(u32(k), u64(k), 0);
                        else if (op == 1) m.delete(u32(k));
                        else m.lookup(u32(k)).ifPresent(v -> assertThat(u64(v, 0)).isEqualTo(k));
                    } catch (BpfMapException e) {
                        assertThat(e.errno()).isIn(Errno.ENOENT, Errno.E2BIG);
                    }
                }
            });
            List<byte[]> keys = m.keyList();
            assertThat(keys.size()).isEqualTo(m.size()).isLessThanOrEqualTo(256);
            for (byte[] k : keys) assertThat(u64(m.lookup(k).orElseThrow(), 0)).isEqualTo(Bytes.u32(k));
            // every slot not in use is free again: the map can be filled to max_entries
            for (byte[] k : keys) m.delete(k);
            for (int i = 0; i < 256; i++) m.update(u32(i), u64(i), MapFlags.BPF_NOEXIST);
        }
    }

    @Test void atomicsOnValuePointersAreAtomicAcrossThreads() throws Exception {
        try (HashTabMap m = HashTabMapTest.hash(MapType.HASH, 4)) {
            m.update(u32(7), u64(0), 0);
            parallel(4, t -> {
                long key = NativeMemory.allocate(4);
                try {
                    NativeMemory.putInt(key, 7);
                    for (int i = 0; i < 50_000; i++) NativeMemory.getAndAddLong(m.programLookup(key), 1);
                } finally {
                    NativeMemory.free(key);
                }
            });
            assertThat(u64(m.lookup(u32(7)).orElseThrow(), 0)).isEqualTo(200_000);
        }
    }
}
