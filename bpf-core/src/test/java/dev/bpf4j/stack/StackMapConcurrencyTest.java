package dev.bpf4j.stack;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads storing, replacing (REUSE) and deleting traces in a map smaller than their traces:
 * afterwards every element is either in exactly one bucket or on the free list, and every bucket
 * holds a trace whose hash is its ips' jhash2 and whose id is that hash masked (never a torn trace).
 */
class StackMapConcurrencyTest {
    @Test
    void theFreeListAndTheBucketsStayConsistentUnderContention() throws Exception {
        long seed = System.nanoTime();
        try (StackTraceMap m = new StackTraceMap(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 6 * 8, 12, 0))) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random rnd = new Random(seed + t);
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 40_000; i++) {
                            long[] trace = new long[1 + rnd.nextInt(6)];
                            for (int k = 0; k < trace.length; k++) trace[k] = 0x400000 + rnd.nextInt(40);
                            long flags = rnd.nextBoolean() ? BPF_F_REUSE_STACKID : 0;
                            long r = StackIds.getStackId(m, trace, flags);
                            if (r < 0 && r != -Errno.EEXIST && r != -Errno.ENOMEM) throw new AssertionError("errno " + r);
                            if (rnd.nextInt(8) == 0) m.exchange(rnd.nextInt(m.buckets()), null);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) t.join();
            assertThat(failure.get()).as("seed %d", seed).isNull();
            Set<Integer> inBuckets = new HashSet<>();
            for (int id = 0; id < m.buckets(); id++) {
                int e = m.bucketElement(id);
                if (e < 0) continue;
                assertThat(inBuckets.add(e)).as("element %d in two buckets (seed %d)", e, seed).isTrue();
                StackTraceMap.Bucket b = m.bucket(id);
                assertThat(b.hash()).isEqualTo(Jhash.hashIps(b.ips(), 0, b.nr()));
                assertThat(b.hash() & (m.buckets() - 1)).isEqualTo(id);
            }
            assertThat(inBuckets.size() + m.freeElements()).as("seed %d", seed).isEqualTo(12);
        }
    }
}
