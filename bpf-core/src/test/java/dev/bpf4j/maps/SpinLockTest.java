package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static org.assertj.core.api.Assertions.assertThat;

class SpinLockTest {
    /** value: u32 lock at 0, u32 pad, u64 data at 8. */
    private static BpfMap make(MapType t) {
        return Maps.create(new MapDefinition("locked", t, 4, 16, 4, 0).withSpinLock(0));
    }

    private static byte[] value(long data, int lockWord) {
        byte[] v = new byte[16];
        System.arraycopy(Bytes.u64(data), 0, v, 8, 8);
        System.arraycopy(Bytes.u32(lockWord), 0, v, 0, 4);
        return v;
    }

    private static long addressOf(BpfMap m, int key) {
        long k = NativeMemory.allocate(4);
        try {
            NativeMemory.putInt(k, key);
            return m.programLookup(k);
        } finally {
            NativeMemory.free(k);
        }
    }

    @Test void createChecksAsMapCheckBtf() {
        assertThat(errno(() -> Maps.create(new MapDefinition("x", MapType.PERCPU_ARRAY, 4, 16, 1, 0).withSpinLock(0)))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> Maps.create(new MapDefinition("x", MapType.LRU_HASH, 4, 16, 1, 0).withSpinLock(0)))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> Maps.create(new MapDefinition("x", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(2)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("x", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(16)))).isEqualTo(Errno.EINVAL);
    }

    @Test void copiesNeverTouchTheLockWordAndShowItAsZero() {
        for (MapType t : new MapType[] {MapType.ARRAY, MapType.HASH}) {
            try (BpfMap m = make(t)) {
                m.update(u32(1), value(5, 0x7777), 0);
                long p = addressOf(m, 1);
                assertThat(NativeMemory.getInt(p)).as("a new element's lock is free").isZero();
                NativeMemory.putInt(p, 1); // held by someone
                m.update(u32(1), value(6, 0x7777), MapFlags.BPF_EXIST);
                assertThat(NativeMemory.getInt(p)).isEqualTo(1);
                assertThat(m.lookup(u32(1)).orElseThrow()).isEqualTo(value(6, 0));
                NativeMemory.putInt(p, 0);
                m.update(u32(1), value(7, 0), MapFlags.BPF_F_LOCK);
                assertThat(m.lookup(u32(1), MapFlags.BPF_F_LOCK).orElseThrow()).isEqualTo(value(7, 0));
                assertThat(errno(() -> m.lookup(u32(1), 2))).isEqualTo(Errno.EINVAL);
                assertThat(NativeMemory.getInt(p)).isZero();
            }
        }
        try (BpfMap plain = Maps.create(new MapDefinition("p", MapType.HASH, 4, 16, 4, 0))) {
            assertThat(errno(() -> plain.lookup(u32(1), MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> plain.update(u32(1), new byte[16], MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
        }
    }

    @Test void lockedUpdateWaitsForTheHolder() throws Exception {
        try (BpfMap m = make(MapType.HASH)) {
            m.update(u32(2), value(1, 0), 0);
            long p = addressOf(m, 2);
            assertThat(SpinLock.tryLock(p)).isTrue();
            CountDownLatch started = new CountDownLatch(1);
            AtomicLong doneAt = new AtomicLong();
            Thread t = new Thread(() -> {
                started.countDown();
                m.update(u32(2), value(99, 0), MapFlags.BPF_F_LOCK);
                doneAt.set(System.nanoTime());
            });
            t.start();
            started.await();
            Thread.sleep(50);
            assertThat(doneAt.get()).as("still waiting for the lock").isZero();
            long released = System.nanoTime();
            SpinLock.unlock(p);
            t.join();
            assertThat(doneAt.get()).isGreaterThan(released);
            assertThat(Bytes.u64(m.lookup(u32(2)).orElseThrow(), 8)).isEqualTo(99);
        }
    }

    @Test void aLeakedLockIsEbusyNotAHang() {
        try (BpfMap m = make(MapType.ARRAY)) {
            long p = addressOf(m, 0);
            NativeMemory.putInt(p, 1); // a program exited holding it
            long t0 = System.nanoTime();
            assertThat(errno(() -> m.update(u32(0), value(1, 0), MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EBUSY);
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(SpinLock.TIMEOUT_NANOS);
        }
    }
}
