package dev.bpf4j.jit;

import dev.bpf4j.maps.CpuPin;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.bpf4j.jit.NativeHashWriteTest.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PERCPU_HASH and LRU_PERCPU_HASH updates and deletes from programs as the JIT's native code: a
 * program's update writes the current CPU's value (sched_getcpu, as the Java helper and the inline
 * per-CPU lookup ask) and a new element gets zeroes in every other CPU's. Seeded random sequences run
 * on the interpreter, the JIT's native code and the JIT with the Java helpers forced, the thread pinned
 * to each CPU in turn so that values land in different CPUs' slots; r0 at every step and the full dump
 * (every CPU's value) agree.
 */
class NativePerCpuHashWriteTest {
    record Shape(String what, MapDefinition def, int keys) {}

    static List<Shape> shapes() {
        return List.of(
                new Shape("percpu hash", new MapDefinition("p", MapType.PERCPU_HASH, 4, 24, 8, 0), 12),
                new Shape("percpu hash, 6-byte keys, 20-byte values", new MapDefinition("p", MapType.PERCPU_HASH, 6, 20, 5, 0), 9),
                new Shape("lru percpu hash", new MapDefinition("p", MapType.LRU_PERCPU_HASH, 4, 24, 3, 0), 9),
                new Shape("lru percpu hash, 1 entry", new MapDefinition("p", MapType.LRU_PERCPU_HASH, 4, 24, 1, 0), 3));
    }

    @Test
    void randomSequencesOnEveryCpuGiveTheSameAnswersAndMaps() {
        int cpus = Cpus.possible();
        Assumptions.assumeTrue(cpus > 1 && Cpus.currentFunction() != 0, "needs two CPUs and sched_getcpu");
        Assumptions.assumeTrue(CpuPin.allowedCount() >= cpus, "needs every possible CPU allowed to this thread");
        CpuPin.onThisCpu(() -> {
            for (Shape s : shapes()) run(s, cpus);
            return null;
        });
    }

    private static void run(Shape s, int cpus) {
        Random rnd = new Random(SEED ^ s.what().hashCode());
        try (HashOps interp = new HashOps(Both.INTERP, MapTable.create(List.of(s.def())), 8, false);
             HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(s.def())), 8, false);
             HashOps java = new HashOps(Jit.ENGINE, MapTable.create(List.of(s.def())), 8, true);
             HashOps.Driver di = interp.new Driver(); HashOps.Driver dn = nat.new Driver(); HashOps.Driver dj = java.new Driver()) {
            int writes = 0;
            Map<String, Integer> answers = new HashMap<>();
            int[] stepsOn = new int[cpus];
            for (int i = 0; i < 2000; i++) {
                if (i % 40 == 0) {
                    int cpu = rnd.nextInt(cpus);
                    assertThat(CpuPin.pin(cpu)).isTrue();
                    assertThat(Cpus.current()).as("pinned to cpu %d", cpu).isEqualTo(cpu);
                }
                stepsOn[Cpus.current()]++;
                int op = rnd.nextInt(4) == 0 ? HashOps.DELETE : rnd.nextInt(3) == 0 ? HashOps.LOOKUP : HashOps.UPDATE;
                long key = rnd.nextInt(s.keys());
                long flags = FLAGS[rnd.nextInt(FLAGS.length)];
                long[] v = value(key, i);
                String expected = di.run(op, key, flags, v[0], v[1], v[2]);
                String what = String.format("%s, seed %#x, step %d on cpu %d: op %d key %d flags %d", s.what(), SEED, i, Cpus.current(), op, key, flags);
                assertThat(dn.run(op, key, flags, v[0], v[1], v[2])).as("native, " + what).isEqualTo(expected);
                assertThat(dj.run(op, key, flags, v[0], v[1], v[2])).as("java helpers, " + what).isEqualTo(expected);
                if (op != HashOps.LOOKUP) writes++;
                answers.merge(op + ":" + expected, 1, Integer::sum);
                assertThat(nat.dump()).as("native, after " + what).isEqualTo(interp.dump());
                assertThat(java.dump()).as("java helpers, after " + what).isEqualTo(interp.dump());
            }
            for (int c = 0; c < cpus; c++) assertThat(stepsOn[c]).as("steps on cpu %d", c).isGreaterThan(200);
            HashOps.assertEveryAnswerSeen(answers, s.what(), s.def().type() == MapType.PERCPU_HASH);
            assertThat(java.helperCalls.get()).as("the forced Java path calls every time").isEqualTo(writes);
            assertThat(nat.helperCalls.get()).as(s.what() + ": no helper call").isZero();
        }
    }

    /**
     * Four unpinned JIT threads insert (evicting), update and delete keys of one small LRU_PERCPU_HASH
     * while a Java thread updates every CPU's value at once and reads them: afterwards each key is
     * listed once, each CPU's value is zeroes or an untorn value of that key, the count matches, and the
     * emptied map takes exactly max_entries keys again before it evicts.
     */
    @Test
    void threadsOnOnePerCpuLruMapLeaveItConsistent() throws Exception {
        int threads = 4, steps = 20_000, max = 6, cpus = Cpus.possible();
        MapDefinition def = new MapDefinition("p", MapType.LRU_PERCPU_HASH, 4, 24, max, 0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<Thread> ts = new java.util.ArrayList<>();
            for (int t = 0; t <= threads; t++) {
                boolean javaApi = t == threads;
                long seed = SEED + 500 + t;
                ts.add(new Thread(() -> {
                    Random rnd = new Random(seed);
                    try (HashOps.Driver d = nat.new Driver()) {
                        for (int i = 0; i < steps && failure.get() == null; i++) {
                            long key = rnd.nextInt(3 * max);
                            long[] v = value(key, i);
                            int r = rnd.nextInt(10);
                            if (javaApi) {
                                java.nio.ByteBuffer all = java.nio.ByteBuffer.allocate(cpus * 24).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                                for (int c = 0; c < cpus; c++) all.putLong(v[0]).putLong(v[1]).putLong(v[2]);
                                if (r < 6) nat.maps.map(0).update(NativeLruEvictionTest.key(key), all.array(), 0);
                                else nat.maps.map(0).lookup(NativeLruEvictionTest.key(key)).ifPresent(b -> checkValues(key, b, cpus));
                                continue;
                            }
                            int op = r < 7 ? HashOps.UPDATE : r < 8 ? HashOps.LOOKUP : HashOps.DELETE;
                            String got = d.run(op, key, rnd.nextInt(3), v[0], v[1], v[2]);
                            // (a program's lookup reads without a lock, as in the kernel: an element evicted under it may read another key's value)
                            seen.add(op + ":" + (op == HashOps.LOOKUP ? "" : got));
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            startAndJoin(ts);
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertThat(seen).isSubsetOf("0:0", "0:" + -Errno.EEXIST, "0:" + -Errno.ENOENT, "1:0", "1:" + -Errno.ENOENT, "2:");
            assertThat(nat.helperCalls.get()).as("JIT writes that went to Java (a busy lock)").isLessThan(threads * steps / 20);
            List<byte[]> keys = nat.maps.map(0).keyList();
            java.util.Set<Long> distinct = new java.util.HashSet<>();
            for (byte[] k : keys) {
                long key = java.nio.ByteBuffer.wrap(k).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
                assertThat(distinct.add(key)).as("key %d once", key).isTrue();
                checkValues(key, nat.maps.map(0).lookup(k).orElseThrow(), cpus);
            }
            assertThat(((dev.bpf4j.maps.HashTabMap) nat.maps.map(0)).size()).as("nothing in flight, nothing lost").isEqualTo(keys.size());
            try (HashOps.Driver d = nat.new Driver()) {
                for (long k : distinct) assertThat(d.run(HashOps.DELETE, k, 0, 0, 0, 0)).isEqualTo("0");
                for (long k = 0; k < max; k++) assertThat(d.run(HashOps.UPDATE, 100 + k, 1, 1, 2, 3)).isEqualTo("0");
                assertThat(nat.maps.map(0).keyList()).as("no eviction while slots are free").hasSize(max);
                assertThat(d.run(HashOps.UPDATE, 999, 1, 1, 2, 3)).isEqualTo("0");
                assertThat(nat.maps.map(0).keyList()).as("then one evicted").hasSize(max);
            }
        }
    }

    /** Each CPU's 24 bytes: zeroes, or the three words of a value of {@code key}. */
    static void checkValues(long key, byte[] all, int cpus) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(all).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int c = 0; c < cpus; c++) {
            long v0 = b.getLong(c * 24), v1 = b.getLong(c * 24 + 8), v2 = b.getLong(c * 24 + 16);
            if (v0 == 0 && v1 == 0 && v2 == 0) continue;
            if (v1 != ~v0 || v2 != v0 * K || v0 >>> 32 != key) {
                throw new AssertionError(String.format("key %d, cpu %d: torn or foreign value %x %x %x", key, c, v0, v1, v2));
            }
        }
    }

    /**
     * The zeroes of a new element: key 1 gets values on both CPUs, is deleted, and is inserted again on
     * one CPU; the other CPU's value reads zero (the slot's old bytes would be a leak), natively as in Java.
     */
    @Test
    void aNewElementHasZeroesOnTheOtherCpus() {
        Assumptions.assumeTrue(Cpus.possible() > 1 && Cpus.currentFunction() != 0, "needs two CPUs and sched_getcpu");
        Assumptions.assumeTrue(CpuPin.allowedCount() >= 2, "needs two CPUs allowed to this thread");
        MapDefinition def = new MapDefinition("p", MapType.PERCPU_HASH, 4, 24, 1, 0);
        CpuPin.onThisCpu(() -> {
            for (boolean javaHelpers : new boolean[]{false, true}) {
                try (HashOps ops = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, javaHelpers); HashOps.Driver d = ops.new Driver()) {
                    for (int cpu : new int[]{0, 1}) {
                        assertThat(CpuPin.pin(cpu)).isTrue();
                        long[] v = value(1, 10 + cpu);
                        assertThat(d.run(HashOps.UPDATE, 1, 0, v[0], v[1], v[2])).isEqualTo("0");
                    }
                    assertThat(d.run(HashOps.DELETE, 1, 0, 0, 0, 0)).isEqualTo("0");
                    assertThat(CpuPin.pin(0)).isTrue();
                    long[] v = value(1, 20);
                    assertThat(d.run(HashOps.UPDATE, 1, 0, v[0], v[1], v[2])).isEqualTo("0");
                    assertThat(d.run(HashOps.LOOKUP, 1, 0, 0, 0, 0)).isEqualTo(Long.toString(v[1]));
                    assertThat(CpuPin.pin(1)).isTrue();
                    assertThat(d.run(HashOps.LOOKUP, 1, 0, 0, 0, 0)).as("java helpers %s: cpu 1's value", javaHelpers).isEqualTo("0");
                    assertThat(ops.helperCalls.get() == 0).as("java helpers %s", javaHelpers).isEqualTo(!javaHelpers);
                }
            }
            return null;
        });
    }
}
