package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.bpf4j.maps.Bytes.errno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingBufMapTest {
    private static RingBufMap ring(int size) {
        return (RingBufMap) Maps.create(new MapDefinition("rb", MapType.RINGBUF, 0, 0, size, 0));
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed * 31 + i);
        return b;
    }

    @Test void createChecks() {
        assertThat(errno(() -> ring(4096 * 3))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> ring(2048))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("rb", MapType.RINGBUF, 4, 0, 4096, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("rb", MapType.RINGBUF, 0, 0, 4096, MapFlags.BPF_F_RDONLY_PROG)))).isEqualTo(Errno.EINVAL);
    }

    @Test void kernelLayoutHeadersAndPositions() {
        try (RingBufMap rb = ring(4096)) {
            assertThat(rb.baseAddress() % 4096).isZero();
            assertThat(rb.producerPosAddress()).isEqualTo(rb.baseAddress() + 4096);
            assertThat(rb.dataAddress()).isEqualTo(rb.baseAddress() + 8192);
            long s = rb.reserve(5);
            assertThat(s).isEqualTo(rb.dataAddress() + 8);
            int hdr = NativeMemory.getInt(s - 8);
            assertThat(hdr).isEqualTo(5 | RingBufMap.BUSY_BIT);
            assertThat(NativeMemory.getInt(s - 4)).isEqualTo(2); // pg_off: data starts two pages after the base
            assertThat(rb.producerPos()).isEqualTo(16);
            assertThat(rb.query(MapFlags.BPF_RB_AVAIL_DATA)).isEqualTo(16);
            assertThat(rb.reader().drain()).isEmpty(); // BUSY blocks the consumer
            assertThat(rb.commit(s, 0, false)).isTrue();
            assertThat(NativeMemory.getInt(s - 8)).isEqualTo(5);
            assertThat(rb.commit(s, 0, false)).isFalse(); // already submitted
            assertThat(rb.reader().drain()).singleElement().satisfies(r -> assertThat(r).hasSize(5));
            assertThat(rb.consumerPos()).isEqualTo(16);
            assertThat(rb.query(MapFlags.BPF_RB_RING_SIZE)).isEqualTo(4096);
            assertThat(rb.query(MapFlags.BPF_RB_CONS_POS)).isEqualTo(16);
            assertThat(rb.query(MapFlags.BPF_RB_PROD_POS)).isEqualTo(16);
            assertThat(rb.query(99)).isZero();
        }
    }

    @Test void consumerStopsAtABusyRecordThenDeliversInOrderAndSkipsDiscards() {
        try (RingBufMap rb = ring(4096)) {
            long a = rb.reserve(8), b = rb.reserve(8), c = rb.reserve(8);
            NativeMemory.putLong(a, 1);
            NativeMemory.putLong(b, 2);
            NativeMemory.putLong(c, 3);
            rb.commit(b, 0, false);
            rb.commit(c, 0, true);
            RingBufferReader r = rb.reader();
            assertThat(r.drain()).isEmpty();
            rb.commit(a, 0, false);
            List<byte[]> got = r.drain();
            assertThat(got).extracting(x -> Bytes.u64(x, 0)).containsExactly(1L, 2L);
            assertThat(rb.consumerPos()).isEqualTo(rb.producerPos());
        }
    }

    @Test void fullRingRefusesAndRecordsWrapAroundTheEnd() {
        try (RingBufMap rb = ring(4096)) {
            assertThat(rb.reserve(4096)).isZero(); // record + header larger than the ring
            assertThat(rb.reserve(0xffffffffL)).isZero();
            RingBufferReader r = rb.reader();
            List<byte[]> sent = new ArrayList<>();
            List<byte[]> got = new ArrayList<>();
            int wrapped = 0;
            for (int i = 0; i < 200; i++) {
                byte[] rec = pattern(1000 + i % 13, i);
                long before = rb.producerPos() & 4095;
                try {
                    rb.output(rec, 0);
                } catch (BpfMapException e) {
                    assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
                    r.consume(got::add);
                    rb.output(rec, 0);
                }
                if (before + 8 + rec.length > 4096) wrapped++;
                sent.add(rec);
            }
            r.consume(got::add);
            assertThat(wrapped).isGreaterThan(10);
            assertThat(got).hasSize(sent.size());
            for (int i = 0; i < sent.size(); i++) assertThat(got.get(i)).as("record %d", i).isEqualTo(sent.get(i));
        }
    }

    @Test void reservedSampleCrossingTheEndIsWrittenContiguously() {
        try (RingBufMap rb = ring(4096)) {
            rb.output(new byte[4000], 0);
            rb.reader().drain();
            long s = rb.reserve(300); // starts at 4008, crosses the end
            assertThat(s + 300).isGreaterThan(rb.dataAddress() + 4096);
            assertThat(rb.regions().get(0).allows(s, 300, true)).isTrue();
            byte[] p = pattern(300, 7);
            NativeMemory.write(s, p, 0, 300);
            rb.commit(s, 0, false);
            assertThat(rb.reader().drain()).singleElement().isEqualTo(p);
        }
    }

    @Test void aProgramScribblingOnHeadersCannotCorruptCommitOrCrashTheReader() {
        try (RingBufMap rb = ring(4096)) {
            long s = rb.reserve(8);
            NativeMemory.putLong(s - 8, -1L); // the data area is writable: clobber our own header
            rb.commit(s, 0, false);
            assertThat(NativeMemory.getInt(s - 8)).isEqualTo(8);
            assertThat(rb.reader().drain()).hasSize(1);
            long t = rb.reserve(8);
            rb.commit(t, 0, false);
            NativeMemory.putInt(t - 8, 0x3fff_0000); // a committed header claiming a huge record
            assertThatThrownBy(() -> rb.reader().drain()).isInstanceOf(IllegalStateException.class).hasMessageContaining("corrupt");
        }
    }

    @Test void outputFlagsAndFullErrors() {
        try (RingBufMap rb = ring(4096)) {
            long src = NativeMemory.allocate(16);
            try {
                assertThat(rb.output(src, 16, 4)).isEqualTo(-Errno.EINVAL);
                assertThat(rb.output(src, 16, MapFlags.BPF_RB_NO_WAKEUP | MapFlags.BPF_RB_FORCE_WAKEUP)).isZero();
                while (rb.output(src, 16, 0) == 0) { /* fill */ }
                assertThat(rb.output(src, 16, 0)).isEqualTo(-Errno.EAGAIN);
                assertThat(rb.query(MapFlags.BPF_RB_AVAIL_DATA)).isLessThanOrEqualTo(4095);
            } finally {
                NativeMemory.free(src);
            }
        }
    }

    @Test void pollWakesUpOnSubmitFromAnotherThread() throws Exception {
        try (RingBufMap rb = ring(8192)) {
            List<byte[]> got = new ArrayList<>();
            Thread producer = new Thread(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                rb.output(new byte[] {42}, 0);
            });
            producer.start();
            long t0 = System.nanoTime();
            int n = rb.reader().poll(got::add, Duration.ofSeconds(10));
            producer.join();
            assertThat(n).isEqualTo(1);
            assertThat(got.get(0)).isEqualTo(new byte[] {42});
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(rb.reader().poll(got::add, Duration.ofMillis(20))).isZero();
        }
    }

    @Test void readerOfAClosedRingIsAClearError() {
        RingBufMap rb = ring(4096);
        RingBufferReader r = rb.reader();
        rb.close();
        assertThatThrownBy(r::drain).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test void noKeyedOperations() {
        try (RingBufMap rb = ring(4096)) {
            assertThat(errno(() -> rb.lookup(new byte[0]))).isEqualTo(Errno.ENOTSUPP);
            assertThat(rb.programUpdate(0, 0, 0)).isEqualTo(-Errno.ENOTSUPP);
            assertThat(Arrays.asList(rb.programLookup(0))).containsExactly(0L);
        }
    }
}
