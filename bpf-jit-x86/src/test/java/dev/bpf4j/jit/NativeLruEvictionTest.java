package dev.bpf4j.jit;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.HashTabMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.jit.NativeHashWriteTest.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LRU_HASH updates into a full map evict natively (LruEvictCode) exactly as the Java helper does: seeded
 * random sequences on maps small enough that most inserts evict give, on the interpreter, the JIT's
 * native code and the JIT with the Java helpers forced, the same r0 at every step and the same map
 * (which element went) after every step; JIT threads and a Java thread sharing one small LRU map leave
 * it consistent, with no slot lost or handed out twice.
 */
class NativeLruEvictionTest {
    /** Sizes down to one element; key ranges of two to four times the size, so that inserts evict often. */
    static final int[][] SHAPES = {{1, 3}, {2, 5}, {3, 9}, {5, 12}, {16, 40}, {37, 150}};

    @Test
    void evictionsChooseTheSameElementOnEveryPath() {
        for (int[] shape : SHAPES) {
            int max = shape[0], keys = shape[1];
            MapDefinition def = new MapDefinition("lru", MapType.LRU_HASH, 4, 24, max, 0);
            Random rnd = new Random(SEED ^ (max * 31L + keys));
            try (HashOps interp = new HashOps(Both.INTERP, MapTable.create(List.of(def)), 8, false);
                 HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false);
                 HashOps java = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, true);
                 HashOps.Driver di = interp.new Driver(); HashOps.Driver dn = nat.new Driver(); HashOps.Driver dj = java.new Driver()) {
                int evictions = 0, writes = 0;
                for (int i = 0; i < 3000; i++) {
                    // lookups set reference bits (the second chances), deletes free slots the sweep must skip
                    int r = rnd.nextInt(10);
                    int op = r < 5 ? HashOps.UPDATE : r < 8 ? HashOps.LOOKUP : HashOps.DELETE;
                    long key = rnd.nextInt(keys);
                    long flags = rnd.nextInt(8) == 0 ? FLAGS[rnd.nextInt(FLAGS.length)] : rnd.nextInt(4) == 0 ? 1 : 0;
                    long[] v = value(key, i);
                    int before = ((HashTabMap) interp.maps.map(0)).size();
                    boolean present = interp.maps.map(0).lookup(key(key)).isPresent();
                    String expected = di.run(op, key, flags, v[0], v[1], v[2]);
                    String what = String.format("max %d, seed %#x, step %d: op %d key %d flags %d", max, SEED, i, op, key, flags);
                    assertThat(dn.run(op, key, flags, v[0], v[1], v[2])).as("native, " + what).isEqualTo(expected);
                    assertThat(dj.run(op, key, flags, v[0], v[1], v[2])).as("java helpers, " + what).isEqualTo(expected);
                    if (max <= 5 || i % 8 == 0) { // which element went: every step where it is cheap
                        assertThat(nat.dump()).as("native, after " + what).isEqualTo(interp.dump());
                        assertThat(java.dump()).as("java helpers, after " + what).isEqualTo(interp.dump());
                    }
                    if (op == HashOps.UPDATE && !present && before == max && expected.equals("0")) evictions++;
                    if (op != HashOps.LOOKUP) writes++;
                }
                assertThat(evictions).as("max %d: inserts that evicted", max).isGreaterThan(300);
                assertThat(nat.dump()).as("native, max " + max).isEqualTo(interp.dump());
                assertThat(java.dump()).as("java helpers, max " + max).isEqualTo(interp.dump());
                assertThat(nat.helperCalls.get()).as("max %d: every write native", max).isZero();
                assertThat(java.helperCalls.get()).as("max %d: the forced Java path calls every time", max).isEqualTo(writes);
                assertThat(((HashTabMap) nat.maps.map(0)).size()).isEqualTo(((HashTabMap) interp.maps.map(0)).size());
            }
        }
    }

    /**
     * An element that a lookup used since the last sweep gets a second chance: with every element but one
     * looked up, the insert evicts that one, on both paths (checked by key, not only by dump equality).
     */
    @Test
    void theElementNotUsedSinceTheLastSweepGoes() {
        // each round: fill, insert once (a sweep: every bit now clear), look up all but one old key, insert again
        int max = 4;
        MapDefinition def = new MapDefinition("lru", MapType.LRU_HASH, 4, 24, max, 0);
        for (boolean javaHelpers : new boolean[]{false, true}) {
            try (HashOps ops = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, javaHelpers); HashOps.Driver d = ops.new Driver()) {
                for (int cold = 0; cold < max; cold++) {
                    for (long k = 0; k < max; k++) {
                        long[] v = value(k, 1);
                        d.run(HashOps.UPDATE, k, 0, v[0], v[1], v[2]);
                    }
                    // one sweep clears every bit: then touch all but `cold`
                    long[] v = value(100 + cold, 2);
                    assertThat(d.run(HashOps.UPDATE, 100 + cold, 0, v[0], v[1], v[2])).isEqualTo("0");
                    Set<Long> left = contents(ops).keySet();
                    List<Long> old = left.stream().filter(k -> k < 100).sorted().toList();
                    long victim = old.get(cold % old.size());
                    for (long k : left) if (k != victim) d.run(HashOps.LOOKUP, k, 0, 0, 0, 0); // the only cold one
                    v = value(200 + cold, 3);
                    assertThat(d.run(HashOps.UPDATE, 200 + cold, 0, v[0], v[1], v[2])).isEqualTo("0");
                    Set<Long> now = contents(ops).keySet();
                    assertThat(now).as("java helpers %s: the cold key %d went", javaHelpers, victim).doesNotContain(victim).contains(200L + cold);
                    assertThat(now).hasSize(max);
                    for (long k : new HashSet<>(now)) d.run(HashOps.DELETE, k, 0, 0, 0, 0);
                }
                assertThat(ops.helperCalls.get() == 0).as("java helpers %s", javaHelpers).isEqualTo(!javaHelpers);
            }
        }
    }

    /**
     * Four JIT threads update (mostly inserting, so evicting) and delete random keys of one small LRU map
     * while a Java thread updates and looks up through the map's API: every answer is 0 or an expected
     * error, every key is listed once with an untorn value of its own, the element count matches the
     * listing, and afterwards the map takes exactly max_entries new keys without evicting, then evicts
     * one for each further insert (no slot lost, none handed out twice, none left in flight).
     */
    @Test
    void threadsEvictingFromOneMapLeaveItConsistent() throws Exception {
        int threads = 4, steps = 30_000, max = 8;
        MapDefinition def = new MapDefinition("lru", MapType.LRU_HASH, 4, 24, max, 0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            AtomicInteger javaOps = new AtomicInteger();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t <= threads; t++) {
                boolean javaApi = t == threads;
                long seed = SEED + 300 + t;
                ts.add(new Thread(() -> {
                    Random rnd = new Random(seed);
                    try (HashOps.Driver d = nat.new Driver()) {
                        for (int i = 0; i < steps && failure.get() == null; i++) {
                            long key = rnd.nextInt(4 * max);
                            long[] v = value(key, i);
                            int r = rnd.nextInt(10);
                            int op = javaApi ? (r < 6 ? HashOps.UPDATE : HashOps.LOOKUP) : r < 7 ? HashOps.UPDATE : r < 8 ? HashOps.LOOKUP : HashOps.DELETE;
                            long flags = rnd.nextInt(3);
                            long got = javaApi ? javaOp(nat, op, key, flags, v) : Long.parseLong(d.run(op, key, flags, v[0], v[1], v[2]));
                            if (op == HashOps.LOOKUP) {
                                // a program's lookup reads without a lock (as in the kernel): only the Java API's read is checked
                                if (javaApi && got != -1 && (got >>> 32) != (~key & 0xffffffffL)) throw new AssertionError("lookup of key " + key + " read " + Long.toHexString(got));
                                got = got == -1 ? -1 : 1;
                            }
                            if (javaApi) javaOps.incrementAndGet();
                            seen.add(op + ":" + got);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            startAndJoin(ts);
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertThat(seen).as("answers").isSubsetOf("0:0", "0:" + -Errno.EEXIST, "0:" + -Errno.ENOENT, "1:0", "1:" + -Errno.ENOENT, "2:1", "2:-1");
            assertThat(seen).contains("0:0", "0:" + -Errno.EEXIST, "0:" + -Errno.ENOENT, "1:0", "2:1");
            assertThat(javaOps.get()).isEqualTo(steps);
            assertThat(nat.helperCalls.get()).as("JIT updates and deletes that went to Java (a busy lock)").isLessThan(threads * steps / 20);
            Map<Long, Long> left = contents(nat);
            assertThat(((HashTabMap) nat.maps.map(0)).size()).as("nothing in flight, nothing lost").isEqualTo(left.size());
            try (HashOps.Driver d = nat.new Driver()) {
                for (long k : new HashSet<>(left.keySet())) assertThat(d.run(HashOps.DELETE, k, 0, 0, 0, 0)).isEqualTo("0");
                assertThat(contents(nat)).isEmpty();
                for (long k = 0; k < max; k++) {
                    long[] v = value(100 + k, 1);
                    assertThat(d.run(HashOps.UPDATE, 100 + k, 1, v[0], v[1], v[2])).isEqualTo("0");
                    assertThat(contents(nat)).as("no eviction while slots are free").hasSize((int) k + 1);
                }
                for (long k = 0; k < 3 * max; k++) {
                    long[] v = value(200 + k, 1);
                    assertThat(d.run(HashOps.UPDATE, 200 + k, 1, v[0], v[1], v[2])).isEqualTo("0");
                    assertThat(contents(nat)).as("one evicted per insert").hasSize(max).containsKey(200 + k);
                }
                assertThat(((HashTabMap) nat.maps.map(0)).size()).isEqualTo(max);
            }
        }
    }

    static byte[] key(long k) { return java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt((int) k).array(); }
}
