package dev.bpf4j.jit;

import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.HashTabMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_map_update_elem / bpf_map_delete_elem on hash maps as the JIT's native code (InlineHashUpdate,
 * InlineHashDelete) against the same program on the interpreter and on the JIT with the Java helpers
 * forced ({@code -Dbpf4j.jit.nativeHelpers=false}): seeded random sequences of updates with every
 * flag, deletes and lookups give the same r0 at every step and the same map dump; threads of JIT runs
 * and a Java thread using the map's API on one small map keep it consistent.
 */
class NativeHashWriteTest {
    static final long SEED = Long.getLong("bpf4j.test.seed", 0x5eed26L);
    static final long[] FLAGS = {0, 0, 0, 0, 1, 1, 2, 2, 4, 5, 3, 8, -1, 6};

    record Shape(String what, MapDefinition def) {}

    static List<Shape> shapes() {
        return List.of(
                new Shape("hash, 4-byte keys", new MapDefinition("h", MapType.HASH, 4, 24, 8, 0)),
                new Shape("hash, 6-byte keys, 5 entries", new MapDefinition("h", MapType.HASH, 6, 24, 5, 0)),
                new Shape("hash, 8-byte keys, a bpf_spin_lock", new MapDefinition("h", MapType.HASH, 8, 24, 8, 0).withSpinLock(0)),
                new Shape("lru hash", new MapDefinition("h", MapType.LRU_HASH, 4, 24, 6, 0)),
                new Shape("hash, 1 entry", new MapDefinition("h", MapType.HASH, 4, 16, 1, 0)));
    }

    static final long K = 0x9E3779B97F4A7C15L;

    /** A value's three words: every byte differs between keys and steps ({@code key << 32 | seq}, its complement, times K). */
    static long[] value(long key, int seq) {
        long v = key << 32 | (seq & 0xffffffffL);
        return new long[]{v, ~v, v * K};
    }

    @Test
    void randomSequencesGiveTheSameAnswersAndMapsOnEveryPath() {
        for (Shape s : shapes()) {
            Random rnd = new Random(SEED ^ s.what().hashCode());
            try (HashOps interp = new HashOps(Both.INTERP, MapTable.create(List.of(s.def())), 8, false);
                 HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(s.def())), 8, false);
                 HashOps java = new HashOps(Jit.ENGINE, MapTable.create(List.of(s.def())), 8, true);
                 HashOps.Driver di = interp.new Driver(); HashOps.Driver dn = nat.new Driver(); HashOps.Driver dj = java.new Driver()) {
                int writes = 0;
                Map<String, Integer> answers = new HashMap<>();
                for (int i = 0; i < 4000; i++) {
                    int op = rnd.nextInt(4) == 0 ? HashOps.DELETE : rnd.nextInt(3) == 0 ? HashOps.LOOKUP : HashOps.UPDATE;
                    long key = rnd.nextInt(s.def().maxEntries() + 4);
                    long flags = FLAGS[rnd.nextInt(FLAGS.length)];
                    long[] v = value(key, i);
                    String expected = di.run(op, key, flags, v[0], v[1], v[2]);
                    String what = String.format("%s, seed %#x, step %d: op %d key %d flags %d", s.what(), SEED, i, op, key, flags);
                    assertThat(dn.run(op, key, flags, v[0], v[1], v[2])).as("native, " + what).isEqualTo(expected);
                    assertThat(dj.run(op, key, flags, v[0], v[1], v[2])).as("java helpers, " + what).isEqualTo(expected);
                    if (op != HashOps.LOOKUP) writes++;
                    answers.merge(op + ":" + expected, 1, Integer::sum);
                    if (i % 250 == 0) {
                        assertThat(nat.dump()).as("native, " + what).isEqualTo(interp.dump());
                        assertThat(java.dump()).as("java helpers, " + what).isEqualTo(interp.dump());
                    }
                }
                assertThat(nat.dump()).as(s.what()).isEqualTo(interp.dump());
                assertThat(java.dump()).as(s.what()).isEqualTo(interp.dump());
                HashOps.assertEveryAnswerSeen(answers, s.what(), s.def().type() == MapType.HASH);
                assertThat(java.helperCalls.get()).as("the forced Java path calls every time").isEqualTo(writes);
                assertThat(nat.helperCalls.get()).as(s.what() + ": no helper call").isZero();
            }
        }
    }

    /**
     * Four JIT threads and a Java thread (the map's update/delete API) each own four keys of one map that
     * holds them all (so no -E2BIG), their buckets shared: each sees exactly the answers of its own
     * sequential model, and the map ends as the union of the models.
     */
    @Test
    void threadsOwningTheirKeysSeeTheirOwnModelOnASharedMap() throws Exception {
        int threads = 4, keysEach = 4, steps = 20_000;
        MapDefinition def = new MapDefinition("h", MapType.HASH, 4, 24, (threads + 1) * keysEach, 0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Map<Long, Long>> models = new ArrayList<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t <= threads; t++) {
                int first = t * keysEach;
                boolean javaApi = t == threads;
                Map<Long, Long> model = new HashMap<>();
                models.add(model);
                ts.add(new Thread(() -> {
                    Random rnd = new Random(SEED + first);
                    try (HashOps.Driver d = nat.new Driver()) {
                        for (int i = 0; i < steps && failure.get() == null; i++) {
                            long key = first + rnd.nextInt(keysEach);
                            long[] v = value(key, i);
                            int op = rnd.nextInt(3);
                            long flags = rnd.nextInt(3);
                            long expected = expect(model, op, key, flags, v[1]);
                            long got = javaApi ? javaOp(nat, op, key, flags, v) : Long.parseLong(d.run(op, key, flags, v[0], v[1], v[2]));
                            if (got != expected) {
                                throw new AssertionError(String.format("thread of key %d, step %d: op %d key %d flags %d: %d, expected %d",
                                        first, i, op, key, flags, got, expected));
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            startAndJoin(ts);
            if (failure.get() != null) throw new AssertionError(failure.get());
            Map<Long, Long> all = new HashMap<>();
            models.forEach(all::putAll);
            assertThat(contents(nat)).isEqualTo(all);
            assertThat(((HashTabMap) nat.maps.map(0)).size()).isEqualTo(all.size());
            assertThat(nat.helperCalls.get()).as("JIT updates and deletes that went to Java (a busy lock)").isLessThan(threads * steps / 20);
        }
    }

    /**
     * Starts the threads (daemons) and waits at most two minutes for them: a broken lock corrupts a chain
     * into a cycle, whose walk never ends; that must fail the test, not hang the build.
     */
    static void startAndJoin(List<Thread> ts) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        for (Thread t : ts) {
            t.setDaemon(true);
            t.start();
        }
        for (Thread t : ts) t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        for (Thread t : ts) assertThat(t.isAlive()).as("a thread still running after two minutes (a cycle in a chain?)").isFalse();
    }

    /**
     * BPF_F_LOCK updates copy under the value's bpf_spin_lock: four JIT threads overwrite four keys of a
     * map whose values hold a lock (BPF_ANY and BPF_EXIST, each with BPF_F_LOCK) while a Java thread reads
     * them with BPF_F_LOCK; no read is torn (words 8 and 16 always of one update), natively, no helper call.
     */
    @Test
    void lockedUpdatesAreNeverSeenTornByLockedReads() throws Exception {
        int threads = 4, steps = 50_000;
        MapDefinition def = new MapDefinition("h", MapType.HASH, 8, 24, 8, 0).withSpinLock(0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            try (HashOps.Driver d = nat.new Driver()) {
                for (long k = 0; k < 4; k++) assertThat(d.run(HashOps.UPDATE, k, 0, 0, ~0L, 0)).isEqualTo("0");
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = SEED + 700 + t;
                ts.add(new Thread(() -> {
                    Random rnd = new Random(seed);
                    try (HashOps.Driver d = nat.new Driver()) {
                        for (int i = 0; i < steps && failure.get() == null; i++) {
                            long key = rnd.nextInt(4);
                            long[] v = value(key, i);
                            String got = d.run(HashOps.UPDATE, key, rnd.nextBoolean() ? 4 : 6, v[0], v[1], v[2]);
                            if (!got.equals("0")) throw new AssertionError("locked update of key " + key + ": " + got);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            Thread reader = new Thread(() -> {
                try {
                    while (!done.get() && failure.get() == null) {
                        for (long k = 0; k < 4; k++) {
                            byte[] key = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(k).array();
                            ByteBuffer v = ByteBuffer.wrap(nat.maps.map(0).lookup(key, dev.bpf4j.maps.MapFlags.BPF_F_LOCK).orElseThrow())
                                    .order(ByteOrder.LITTLE_ENDIAN);
                            long v1 = v.getLong(8), v2 = v.getLong(16);
                            if (v2 != ~v1 * K) throw new AssertionError(String.format("key %d read torn: %x %x", k, v1, v2));
                            reads.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            reader.setDaemon(true);
            reader.start();
            startAndJoin(ts);
            done.set(true);
            reader.join(10_000);
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertThat(reads.get()).isGreaterThan(1000);
            assertThat(nat.helperCalls.get()).as("locked updates that went to Java (a busy lock)").isLessThan(threads * steps / 20);
        }
    }

    /**
     * A value's bpf_spin_lock held from outside (a program between bpf_spin_lock and unlock, or a Java
     * BPF_F_LOCK copy): a JIT BPF_F_LOCK update of that element waits (native spin, then the Java helper)
     * and leaves the value alone until the lock is released.
     */
    @Test
    void aHeldValueLockIsWaitedForByLockedUpdates() throws Exception {
        MapDefinition def = new MapDefinition("h", MapType.HASH, 8, 24, 8, 0).withSpinLock(0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false); HashOps.Driver d = nat.new Driver()) {
            long[] v = value(5, 1);
            assertThat(d.run(HashOps.UPDATE, 5, 0, v[0], v[1], v[2])).isEqualTo("0");
            long key = dev.bpf4j.runtime.NativeMemory.allocate(8);
            long word;
            try {
                dev.bpf4j.runtime.NativeMemory.putLong(key, 5);
                word = nat.maps.map(0).programLookup(key); // the value's lock word is its first 4 bytes
            } finally {
                dev.bpf4j.runtime.NativeMemory.free(key);
            }
            assertThat(dev.bpf4j.runtime.NativeMemory.casInt(word, 0, 1)).isTrue();
            AtomicReference<String> got = new AtomicReference<>();
            int callsBefore = nat.helperCalls.get();
            Thread t = new Thread(() -> {
                try (HashOps.Driver d2 = nat.new Driver()) {
                    long[] w = value(5, 2);
                    got.set(d2.run(HashOps.UPDATE, 5, 4 | 2, w[0], w[1], w[2]));
                }
            });
            t.setDaemon(true);
            t.start();
            t.join(300);
            assertThat(got.get()).as("the locked update finished while the value was locked").isNull();
            assertThat(d.run(HashOps.LOOKUP, 5, 0, 0, 0, 0)).as("the value while its lock is held").isEqualTo(Long.toString(v[1]));
            dev.bpf4j.runtime.NativeMemory.putIntVolatile(word, 0);
            t.join(10_000);
            assertThat(got.get()).isEqualTo("0");
            assertThat(d.run(HashOps.LOOKUP, 5, 0, 0, 0, 0)).isEqualTo(Long.toString(value(5, 2)[1]));
            assertThat(nat.helperCalls.get() - callsBefore).as("the wait went on in the Java helper").isEqualTo(1);
            assertThat(dev.bpf4j.runtime.NativeMemory.getIntVolatile(word)).as("the lock released").isZero();
        }
    }

    /**
     * A bucket lock word held from outside (as a Java writer or another JIT thread holds it): a JIT
     * update of a key in that bucket waits (its native spin, then the Java helper), and completes once
     * the word is released; the same for a delete.
     */
    @Test
    void aHeldBucketLockIsWaitedForByNativeCode() throws Exception {
        MapDefinition def = new MapDefinition("h", MapType.HASH, 4, 24, 8, 0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            dev.bpf4j.runtime.LookupInlining.HashBuckets layout = ((HashTabMap) nat.maps.map(0)).inlineLayout();
            int bucket = dev.bpf4j.runtime.KeyHash.of(new byte[]{5, 0, 0, 0}) & (layout.buckets() - 1);
            long word = layout.indexBase() + layout.writes().locksOffset() + 4L * bucket;
            for (int op : new int[]{HashOps.UPDATE, HashOps.DELETE}) {
                assertThat(dev.bpf4j.runtime.NativeMemory.casInt(word, 0, 1)).isTrue();
                AtomicReference<String> got = new AtomicReference<>();
                int callsBefore = nat.helperCalls.get();
                Thread t = new Thread(() -> {
                    try (HashOps.Driver d = nat.new Driver()) {
                        long[] v = value(5, 1);
                        got.set(d.run(op, 5, 0, v[0], v[1], v[2]));
                    }
                });
                t.setDaemon(true);
                t.start();
                t.join(300);
                assertThat(got.get()).as("op %d finished while the bucket was locked", op).isNull();
                dev.bpf4j.runtime.NativeMemory.putIntVolatile(word, 0);
                t.join(10_000);
                assertThat(got.get()).as("op %d", op).isEqualTo("0");
                assertThat(nat.helperCalls.get() - callsBefore).as("the wait went on in the Java helper").isEqualTo(1);
            }
            assertThat(contents(nat)).isEmpty();
        }
    }

    /** The sequential answer of {@code op} on {@code model} (and the model changed as the map must change). */
    static long expect(Map<Long, Long> model, int op, long key, long flags, long v) {
        boolean present = model.containsKey(key);
        switch (op) {
            case HashOps.UPDATE:
                if (flags == 1 && present) return -Errno.EEXIST;
                if (flags == 2 && !present) return -Errno.ENOENT;
                model.put(key, v);
                return 0;
            case HashOps.DELETE:
                return model.remove(key) == null ? -Errno.ENOENT : 0;
            default:
                return present ? model.get(key) : -1;
        }
    }

    /** The same operation through the map's Java API (the syscall side), answered as the program would. */
    static long javaOp(HashOps ops, int op, long key, long flags, long[] v) {
        byte[] k = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) key).array();
        try {
            switch (op) {
                case HashOps.UPDATE:
                    ops.maps.map(0).update(k, ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putLong(v[0]).putLong(v[1]).putLong(v[2]).array(), flags);
                    return 0;
                case HashOps.DELETE:
                    ops.maps.map(0).delete(k);
                    return 0;
                default:
                    return ops.maps.map(0).lookup(k).map(b -> ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(8)).orElse(-1L);
            }
        } catch (BpfMapException e) {
            return -e.errno();
        }
    }

    /** Key to value word, checking that each value's three words agree (no torn copy). */
    static Map<Long, Long> contents(HashOps ops) {
        Map<Long, Long> out = new HashMap<>();
        for (byte[] k : ops.maps.map(0).keyList()) {
            ByteBuffer v = ByteBuffer.wrap(ops.maps.map(0).lookup(k).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN);
            long key = ByteBuffer.wrap(k).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffffffffL;
            assertThat(v.getLong(8)).as("key %d", key).isEqualTo(~v.getLong(0));
            assertThat(v.getLong(16)).as("key %d", key).isEqualTo(v.getLong(0) * K);
            assertThat(v.getLong(0) >>> 32).as("key %d's value names it", key).isEqualTo(key);
            assertThat(out.put(key, v.getLong(8))).as("key %d once", key).isNull();
        }
        return out;
    }

    /**
     * Four JIT threads and a Java thread update and delete random keys of a map too small for them all
     * (-E2BIG comes and goes): afterwards every key is listed once with an untorn value of its own,
     * the element count matches the free list, and once emptied the map takes exactly max_entries keys
     * again (no slot lost or handed out twice), then -E2BIG.
     */
    @Test
    void threadsHammeringASmallMapLeaveItConsistent() throws Exception {
        int threads = 4, steps = 30_000, max = 8;
        MapDefinition def = new MapDefinition("h", MapType.HASH, 4, 24, max, 0);
        try (HashOps nat = new HashOps(Jit.ENGINE, MapTable.create(List.of(def)), 8, false)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            for (int t = 0; t <= threads; t++) {
                boolean javaApi = t == threads;
                long seed = SEED + 100 + t;
                ts.add(new Thread(() -> {
                    Random rnd = new Random(seed);
                    try (HashOps.Driver d = nat.new Driver()) {
                        for (int i = 0; i < steps && failure.get() == null; i++) {
                            long key = rnd.nextInt(2 * max);
                            long[] v = value(key, i);
                            int op = rnd.nextInt(5) < 3 ? HashOps.UPDATE : HashOps.DELETE;
                            long flags = rnd.nextInt(3);
                            long got = javaApi ? javaOp(nat, op, key, flags, v) : Long.parseLong(d.run(op, key, flags, v[0], v[1], v[2]));
                            seen.add(op + ":" + got);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            startAndJoin(ts);
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertThat(seen).contains("0:0", "0:" + -Errno.E2BIG, "0:" + -Errno.EEXIST, "0:" + -Errno.ENOENT, "1:0", "1:" + -Errno.ENOENT);
            assertThat(nat.helperCalls.get()).as("JIT updates and deletes that went to Java (a busy lock)").isLessThan(threads * steps / 20);
            Map<Long, Long> left = contents(nat);
            assertThat(((HashTabMap) nat.maps.map(0)).size()).isEqualTo(left.size());
            try (HashOps.Driver d = nat.new Driver()) {
                for (long k : new HashSet<>(left.keySet())) assertThat(d.run(HashOps.DELETE, k, 0, 0, 0, 0)).isEqualTo("0");
                assertThat(contents(nat)).isEmpty();
                for (long k = 0; k < max; k++) {
                    long[] v = value(100 + k, 1);
                    assertThat(d.run(HashOps.UPDATE, 100 + k, 1, v[0], v[1], v[2])).isEqualTo("0");
                }
                assertThat(d.run(HashOps.UPDATE, 999, 0, 0, 0, 0)).isEqualTo(Long.toString(-Errno.E2BIG));
                assertThat(contents(nat)).hasSize(max);
            }
        }
    }
}
